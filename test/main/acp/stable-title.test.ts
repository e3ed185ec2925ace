import { afterEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * A session's title (its tab, history, the overview) shows no directive of a raw prompt:
 * an agent that retitles the session with each raw prompt (directives and all) does not change it; the user's
 * name for it wins over both, in the live session and in history.
 */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const liveTitle = (t: TestCore, id: string) => t.rec.of('session.state').filter((s) => s.id === id).at(-1)?.title;
const listedTitle = async (t: TestCore, id: string) => (await t.call('history.list', {})).sessions.find((s) => s.id === id)?.title;

describe('a session title without directives', () => {
  it("is the first prompt's visible words; an agent's title made of a raw prompt shows its words only; the user's rename wins", async () => {
    t = await makeCore();
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, s.id, 'echo <context>\nsecret: hunter2\n</context> Fix the **login** bug in @src/auth/login.ts');
    const want = 'echo Fix the login bug in login.ts';
    expect(liveTitle(t, s.id)).toBe(want);
    // A later prompt does not change it.
    await promptAndWait(t, s.id, 'echo and now something else');
    expect(liveTitle(t, s.id)).toBe(want);
    // The agent titles the session with a raw prompt, directives and all: its words are shown.
    await promptAndWait(t, s.id, 'title "<context>z</context> /review @src/other.ts now make it blue"');
    expect(liveTitle(t, s.id)).toBe('other.ts now make it blue');
    expect(await listedTitle(t, s.id)).toBe('other.ts now make it blue');

    await t.call('history.rename', { sessionId: s.id, title: 'Login work' });
    await promptAndWait(t, s.id, 'title "yet another"');
    expect(await listedTitle(t, s.id)).toBe('Login work');
    expect(liveTitle(t, s.id)).toBe('Login work');
  });
});
