import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ElicitationEntry } from '../../../src/shared/acp-thread';
import { agentText, eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/**
 * ACP elicitation (issue 14) with the scenario agent: `elicit <params>` sends elicitation/create and says
 * what the client answered (`elicitation: {"ok":…}`).
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const FORM = {
  mode: 'form',
  message: 'Configure the project',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Project name', minLength: 2, pattern: '^[a-z][a-z0-9-]*$' },
      port: { type: 'integer', title: 'Port', minimum: 1024, maximum: 65535, default: 3000 },
      logging: { type: 'boolean', title: 'Enable logging', default: true },
      strategy: { type: 'string', title: 'Strategy', oneOf: [{ const: 'safe', title: 'Conservative' }, { const: 'fast', title: 'Aggressive' }], default: 'safe' },
    },
    required: ['name', 'port'],
  },
};

async function ask(sessionId: string, params: unknown) {
  const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: `elicit ${JSON.stringify(params)}` }] });
  const entry = await eventually(async () => {
    const { thread } = await t.call('sessions.state', { sessionId });
    return thread.entries.findLast((e): e is ElicitationEntry => e.kind === 'elicitation' && e.state === 'pending');
  }, 'a pending elicitation');
  return { promptId, entry };
}

/** What the agent was answered, as it reported it. */
function answerOf(sessionId: string): unknown {
  const text = agentText(t.rec, sessionId);
  const at = text.lastIndexOf('elicitation: ');
  return at < 0 ? undefined : JSON.parse(text.slice(at + 'elicitation: '.length));
}

async function stateOf(sessionId: string, requestId: string) {
  const { thread, session } = await t.call('sessions.state', { sessionId });
  return { entry: thread.entries.find((e): e is ElicitationEntry => e.kind === 'elicitation' && e.requestId === requestId)!, status: session.status };
}

describe('elicitation', () => {
  it('advertises form and URL elicitation in initialize', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'client-caps');
    const caps = JSON.parse(agentText(t.rec, s.id).replace('client capabilities: ', '')) as { elicitation?: unknown };
    expect(caps.elicitation).toEqual({ form: {}, url: {} });
  });

  it('form: shows the fields, refuses an answer that does not fit them, sends the accepted content; decline is sent as such', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { promptId, entry } = await ask(s.id, FORM);
    expect(entry.request.mode).toBe('form');
    if (entry.request.mode !== 'form') throw new Error('not a form');
    expect(entry.request.message).toBe('Configure the project');
    expect(entry.request.form.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['name', 'string', true],
      ['port', 'integer', true],
      ['logging', 'boolean', false],
      ['strategy', 'enum', false],
    ]);
    expect((await stateOf(s.id, entry.requestId)).status).toBe('awaiting_permission');

    // A required field missing, a port out of range, a name against the pattern: refused, still pending.
    let bad = await t.callError('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { port: 80 } });
    expect(bad.code).toBe('invalid_params');
    expect(bad.message).toMatch(/name: Required\..*port: At least 1024/);
    bad = await t.callError('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { name: 'Bad Name', port: 3000, extra: 'x' } });
    expect(bad.message).toMatch(/extra: Not a field.*name: Must match/);
    expect((await stateOf(s.id, entry.requestId)).entry.state).toBe('pending');

    const content = { name: 'kite', port: 8080, logging: false, strategy: 'fast' };
    await t.call('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content });
    await turnEnd(t, s.id, promptId);
    expect(answerOf(s.id)).toEqual({ ok: true, result: { action: 'accept', content } });
    const after = await stateOf(s.id, entry.requestId);
    expect([after.entry.state, after.entry.content, after.status]).toEqual(['accept', content, 'idle']);

    const second = await ask(s.id, FORM);
    await t.call('sessions.respondElicitation', { sessionId: s.id, requestId: second.entry.requestId, action: 'decline' });
    await turnEnd(t, s.id, second.promptId);
    expect(answerOf(s.id)).toEqual({ ok: true, result: { action: 'decline' } });
    expect((await stateOf(s.id, second.entry.requestId)).entry.state).toBe('decline');
  });

  it('a pending elicitation is answered cancel when the user cancels its turn; answering later is not_found', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { promptId, entry } = await ask(s.id, FORM);
    await t.call('sessions.cancel', { sessionId: s.id });
    const end = await turnEnd(t, s.id, promptId);
    expect(end.stopReason).toBe('cancelled');
    expect(answerOf(s.id)).toEqual({ ok: true, result: { action: 'cancel' } });
    const after = await stateOf(s.id, entry.requestId);
    expect([after.entry.state, after.status]).toEqual(['cancel', 'idle']);
    const late = await t.callError('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'decline' });
    expect(late.code).toBe('not_found');
  });

  it('a pending elicitation is dismissed when its agent stops: the session fails and nothing waits for an answer', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { entry } = await ask(s.id, FORM);
    await t.call('agents.stop', { agentId });
    const after = await eventually(async () => {
      const st = await stateOf(s.id, entry.requestId);
      return st.status === 'failed' && st;
    }, 'the session to fail');
    expect(after.entry.state).toBe('cancel');
    expect((await t.callError('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'decline' })).code).toBe('not_found');
  });

  it('asked between turns: the session waits for the user (a prompt is queued) until it is answered', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, `elicit-later ${JSON.stringify(FORM)}`);
    const entry = await eventually(async () => {
      const { thread } = await t.call('sessions.state', { sessionId: s.id });
      return thread.entries.find((e): e is ElicitationEntry => e.kind === 'elicitation' && e.state === 'pending');
    }, 'the elicitation between turns');
    expect((await stateOf(s.id, entry.requestId)).status).toBe('awaiting_permission');
    const next = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'hello' }] });
    expect(next.queued).toBe(true);
    await t.call('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { name: 'kite', port: 4000 } });
    await turnEnd(t, s.id, next.promptId);
    const text = agentText(t.rec, s.id);
    expect(text).toContain('elicitation: {"ok":true,"result":{"action":"accept","content":{"name":"kite","port":4000}}}');
    expect(text).toContain('Hello from the scenario agent.');
  });

  it('URL mode: accept means the user chose to open it; elicitation/complete marks it done; unknown ids are ignored', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { promptId, entry } = await ask(s.id, { mode: 'url', elicitationId: 'oauth-1', url: 'https://auth.example.com/connect?e=oauth-1', message: 'Sign in to GitHub' });
    expect(entry.request).toMatchObject({ mode: 'url', url: 'https://auth.example.com/connect?e=oauth-1', host: 'auth.example.com', elicitationId: 'oauth-1', punycode: false });
    // A URL elicitation takes no content.
    await t.call('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { sneaky: 'x' } });
    await turnEnd(t, s.id, promptId);
    expect(answerOf(s.id)).toEqual({ ok: true, result: { action: 'accept' } });
    expect((await stateOf(s.id, entry.requestId)).entry.completed).toBe(false);

    await promptAndWait(t, s.id, 'elicit-complete nobody-knows-me');
    await promptAndWait(t, s.id, 'elicit-complete oauth-1');
    // (A notification: handled apart from the turn's updates.)
    const done = await eventually(async () => {
      const st = await stateOf(s.id, entry.requestId);
      return st.entry.completed && st;
    }, 'the elicitation completed');
    expect(done.entry.state).toBe('accept');
    expect(t.rec.updates().filter((u) => u.event.type === 'elicitation_complete').map((u) => u.event)).toEqual([{ type: 'elicitation_complete', elicitationId: 'oauth-1' }]);

    // The notification names no session: it is stored with the session that asked, so history shows it done.
    await t.call('sessions.close', { sessionId: s.id });
    const stored = await eventually(async () => {
      const r = await t.call('history.entries', { sessionId: s.id, offset: 0, limit: 100 });
      return r.entries.find((e) => e.kind === 'entry' && e.entry?.kind === 'elicitation')?.entry;
    }, 'the stored elicitation');
    expect(stored?.kind === 'elicitation' && [stored.state, stored.completed]).toEqual(['accept', true]);
  });

  it('refuses, with -32602 and the reason, what it cannot show safely; the session goes on', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const refused = async (params: unknown): Promise<string> => {
      const before = agentText(t.rec, s.id).length;
      await promptAndWait(t, s.id, `elicit ${JSON.stringify(params)}`);
      const answer = JSON.parse(agentText(t.rec, s.id).slice(before).replace('elicitation: ', '')) as { ok: boolean; code?: number; message?: string };
      expect(answer.ok).toBe(false);
      expect(answer.code).toBe(-32602);
      return answer.message ?? '';
    };
    const form = (properties: unknown) => ({ mode: 'form', message: 'Q', requestedSchema: { type: 'object', properties } });
    expect(await refused(form({ nested: { type: 'object', properties: { a: { type: 'string' } } } }))).toMatch(/property "nested" has type "object"/);
    expect(await refused(form({ evil: { type: 'string', pattern: '^(a+)\\1$' } }))).toMatch(/property "evil": the pattern uses what a linear-time engine cannot run \(backreferences, lookaround/);
    expect(await refused(form({ bad: { type: 'string', pattern: '([' } }))).toMatch(/not a valid regular expression/);
    expect(await refused(form(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: 'boolean' }]))))).toMatch(/more than 50 properties/);
    expect(await refused(form({ t: { type: 'string', title: 'x'.repeat(501) } }))).toMatch(/title is longer than 500/);
    expect(await refused(form({ e: { type: 'string', enum: ['a', 'b'], default: 'c' } }))).toMatch(/default is not one of the choices/);
    expect(await refused({ mode: '_custom', message: 'Q' })).toMatch(/mode "_custom" is not supported/);
    expect(await refused({ mode: 'url', elicitationId: 'x', url: 'javascript:alert(1)', message: 'Q' })).toMatch(/only http and https/);
    expect(await refused({ mode: 'url', elicitationId: 'x', url: 'file:///etc/passwd', message: 'Q' })).toMatch(/only http and https/);
    expect(await refused({ sessionId: null, requestId: 7, mode: 'form', message: 'Q', requestedSchema: { type: 'object', properties: {} } })).toMatch(/names no sessionId/);
    // None of them reached the thread, and the session still works.
    const { thread, session } = await t.call('sessions.state', { sessionId: s.id });
    expect(thread.entries.filter((e) => e.kind === 'elicitation')).toEqual([]);
    expect(session.status).toBe('idle');
    expect(t.rec.of('session.warning').some((w) => w.sessionId === s.id && /elicitation refused/.test(w.message))).toBe(true);
  });

  it('is kept in history: the stored transcript shows the elicitation and its answer', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { promptId, entry } = await ask(s.id, FORM);
    await t.call('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { name: 'kite', port: 4000 } });
    await turnEnd(t, s.id, promptId);
    await t.call('sessions.close', { sessionId: s.id });
    const stored = await eventually(async () => {
      const r = await t.call('history.entries', { sessionId: s.id, offset: 0, limit: 100 });
      return r.entries.find((e) => e.kind === 'entry' && e.entry?.kind === 'elicitation')?.entry;
    }, 'the stored elicitation');
    if (stored?.kind !== 'elicitation') throw new Error('not an elicitation');
    expect([stored.state, stored.content, stored.request.message]).toEqual(['accept', { name: 'kite', port: 4000 }, 'Configure the project']);
  });
});
