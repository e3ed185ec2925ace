import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SetupRun, WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

/** A worktree's setup command (npm ci…) and the session working there: its first prompt waits for the setup. */
let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

const setSetup = (setupCommand: string) =>
  f.core.settings.set({ key: 'worktrees.repos', value: { [sh(f.repo, 'rev-parse', '--show-toplevel').trim()]: { setupCommand, setupTimeoutSeconds: 600 } } });
const create = (branch: string) => f.ok<{ worktree: WorktreeInfo; setup: SetupRun | null }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base: 'main' });
/** Index in the event log of the first event `pick` matches (-1: none). */
const at = (pick: (name: string, payload: Record<string, unknown>) => boolean) => f.events.findIndex((e) => pick(e.name, e.payload as Record<string, unknown>));
const isPromptOf = (sessionId: string) => (name: string, p: Record<string, unknown>) =>
  name === 'session.update' && p.sessionId === sessionId && (p.events as Array<{ event: { type: string } }>).some((e) => e.event.type === 'prompt');

describe('the setup command and the first prompt', () => {
  it('holds the prompt (shown as waiting for the setup) until the setup ends, then sends it', async () => {
    // The setup runs until the test lets it finish (a file it waits for): like npm ci, it takes its time.
    const release = join(f.root, 'release');
    setSetup(`echo "first line of the setup"; while [ ! -e "${release}" ]; do sleep 0.05; done; echo installed > installed.txt; echo "last line"`);
    const { worktree, setup } = await create('sb/setup-first');
    const agentId = await f.addAgent();
    const session = await f.call<{ id: string }>('sessions.create', { agentId, cwd: worktree.path });
    const sent = await f.call<{ promptId: string; queued: boolean }>('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'hello' }] });
    expect(sent.queued).toBe(true);
    const snap = await f.call<{ queue: unknown[]; queueWaitingFor?: string }>('sessions.state', { sessionId: session.id });
    expect(snap.queue).toHaveLength(1);
    expect(snap.queueWaitingFor).toMatch(/setup command/);
    const queued = f.events.filter((e) => e.name === 'session.queue' && (e.payload as { sessionId: string }).sessionId === session.id).at(-1)?.payload as { items: unknown[]; waitingFor?: string };
    expect(queued).toMatchObject({ items: [expect.anything()], waitingFor: expect.stringContaining('setup command') });
    expect(at(isPromptOf(session.id))).toBe(-1);

    // The output from its first byte, though nobody listened when it came.
    await expect.poll(async () => (await f.call<{ runs: SetupRun[] }>('worktrees.setupRuns', { path: worktree.path })).runs.at(-1)?.output, { timeout: 15_000 }).toMatch(/^first line of the setup\n/);

    writeFileSync(release, '');
    const end = await f.promptAndWait(session.id, 'second');
    expect(end.error).toBeNull();
    const setupEnded = at((name, p) => name === 'worktrees.setupEnded' && p.id === setup!.id);
    expect(setupEnded).toBeGreaterThanOrEqual(0);
    expect(at(isPromptOf(session.id))).toBeGreaterThan(setupEnded);
    const last = f.events.filter((e) => e.name === 'session.queue' && (e.payload as { sessionId: string }).sessionId === session.id).at(-1)?.payload as { waitingFor?: string };
    expect(last.waitingFor).toBeUndefined();
  });

  it('numbers the output so a late listener joins it without a gap or a repeat', async () => {
    setSetup('for i in 1 2 3 4 5; do echo "line $i"; done');
    const { setup } = await create('sb/setup-output');
    await f.core.worktrees.setup.wait(setup!.id);
    const chunks = f.events.filter((e) => e.name === 'worktrees.setupOutput').map((e) => e.payload as { chunk: string; offset: number });
    let length = 0;
    for (const c of chunks) {
      expect(c.offset).toBe(length);
      length += c.chunk.length;
    }
    const run = (await f.call<{ runs: SetupRun[] }>('worktrees.setupRuns', {})).runs.find((r) => r.id === setup!.id);
    expect(run?.output).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n');
  });
});
