import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, makeCore, turnEnd, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

async function ask(sessionId: string, kind: string) {
  const before = t.rec.of('session.permission').length;
  const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: `permission ${kind}` }] });
  return { promptId, before };
}

describe('permission requests', () => {
  it('asks the user, remembers "always" per agent and tool kind, and can forget it', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });

    // 1. Asked: the user picks the option of kind allow_always.
    let p = await ask(s.id, 'edit');
    const req = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'a permission request');
    expect(req.toolCall.kind).toBe('edit');
    expect((await t.call('sessions.state', { sessionId: s.id })).session.status).toBe('awaiting_permission');
    const snapshot = await t.call('sessions.state', { sessionId: s.id });
    expect(snapshot.permissions.map((x) => x.requestId)).toEqual([req.requestId]);
    const tool = snapshot.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.permission?.requestId).toBe(req.requestId);
    const always = req.options.find((o) => o.kind === 'allow_always')!;
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: always.optionId });
    await turnEnd(t, s.id, p.promptId);
    expect(agentText(t.rec, s.id)).toContain('permission: selected yes-forever');
    const rules = (await t.call('permissionRules.list', {})).rules;
    expect(rules).toMatchObject([{ agentId, toolKind: 'edit', decision: 'allow' }]);

    // 2. Same agent and kind, in a new session: answered by the rule, the user is not asked.
    const s2 = await t.call('sessions.create', { agentId, cwd: t.work });
    p = await ask(s2.id, 'edit');
    await turnEnd(t, s2.id, p.promptId);
    expect(t.rec.of('session.permission').length).toBe(p.before);
    expect(agentText(t.rec, s2.id)).toContain('permission: selected yes-forever');
    expect(t.rec.of('session.permissionResolved').at(-1)).toMatchObject({ sessionId: s2.id, byRule: true, optionId: 'yes-forever' });

    // 3. Another kind is still asked; reject_always makes a reject rule.
    p = await ask(s2.id, 'execute');
    const req2 = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'a second permission request');
    const never = req2.options.find((o) => o.kind === 'reject_always')!;
    await t.call('sessions.respondPermission', { sessionId: s2.id, requestId: req2.requestId, outcome: 'selected', optionId: never.optionId });
    await turnEnd(t, s2.id, p.promptId);
    p = await ask(s2.id, 'execute');
    await turnEnd(t, s2.id, p.promptId);
    expect(t.rec.of('session.permission').length).toBe(p.before);
    expect(agentText(t.rec, s2.id)).toContain('permission: selected never-ever');

    // 4. Removing the rule brings the question back.
    const editRule = (await t.call('permissionRules.list', { agentId })).rules.find((r) => r.toolKind === 'edit')!;
    await t.call('permissionRules.remove', { id: editRule.id });
    p = await ask(s2.id, 'edit');
    const req3 = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'the question again');
    const once = req3.options.find((o) => o.kind === 'allow_once')!;
    await t.call('sessions.respondPermission', { sessionId: s2.id, requestId: req3.requestId, outcome: 'selected', optionId: once.optionId });
    await turnEnd(t, s2.id, p.promptId);
    expect((await t.call('permissionRules.list', { agentId })).rules.map((r) => r.toolKind)).toEqual(['execute']);

    // An option that was not offered is refused and the request stays pending.
    p = await ask(s2.id, 'delete');
    const req4 = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'a delete request');
    const bad = await t.callError('sessions.respondPermission', { sessionId: s2.id, requestId: req4.requestId, outcome: 'selected', optionId: 'made-up' });
    expect(bad.code).toBe('invalid_params');
    await t.call('sessions.respondPermission', { sessionId: s2.id, requestId: req4.requestId, outcome: 'cancelled' });
    const end = await turnEnd(t, s2.id, p.promptId);
    expect(end.stopReason).toBe('cancelled');
  });

  it('answers pending requests "cancelled" when the turn is cancelled', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const p = await ask(s.id, 'edit');
    const req = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'a permission request');
    await t.call('sessions.cancel', { sessionId: s.id });
    const end = await turnEnd(t, s.id, p.promptId);
    expect(end.stopReason).toBe('cancelled');
    expect(agentText(t.rec, s.id)).toContain('permission: cancelled');
    expect(t.rec.of('session.permissionResolved')).toContainEqual(expect.objectContaining({ requestId: req.requestId, outcome: 'cancelled' }));
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.session.status).toBe('idle');
    expect(state.permissions).toEqual([]);
    // The tool call of the cancelled turn shows as failed (the agent said so) and has no pending question.
    const tool = state.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && [tool.status, tool.permission]).toEqual(['failed', null]);
    // Answering afterwards is an error, not a crash.
    const late = await t.callError('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'cancelled' });
    expect(late.code).toBe('not_found');
  });

  it('stores no rule from an "always" option whose name contradicts its kind unless the user confirms it', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const spoofed = JSON.stringify([
      { optionId: 'yes-spoof', name: 'Reject', kind: 'allow_always' },
      { optionId: 'nope', name: 'No', kind: 'reject_once' },
    ]);
    const ask = async () => {
      const before = t.rec.of('session.permission').length;
      const { promptId } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: `permission execute ${spoofed}` }] });
      return { promptId, req: await t.rec.until(() => t.rec.of('session.permission')[before], 'a spoofed permission request') };
    };
    let { promptId, req } = await ask();
    const err = await t.callError('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'yes-spoof' });
    expect(err.code).toBe('conflict');
    expect(err.message).toMatch(/labelled this option “Reject”, but it would always allow/);
    // Nothing stored, nothing answered: the request is still pending and can be answered otherwise.
    expect((await t.call('permissionRules.list', { agentId })).rules).toEqual([]);
    expect((await t.call('sessions.state', { sessionId: s.id })).permissions.map((x) => x.requestId)).toEqual([req.requestId]);
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'nope' });
    await turnEnd(t, s.id, promptId);
    expect(agentText(t.rec, s.id)).toContain('permission: selected nope');
    expect((await t.call('permissionRules.list', { agentId })).rules).toEqual([]);

    // Confirmed knowingly: the rule is stored (the kind decides what it is).
    ({ promptId, req } = await ask());
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'yes-spoof', confirmMismatch: true });
    await turnEnd(t, s.id, promptId);
    expect((await t.call('permissionRules.list', { agentId })).rules).toMatchObject([{ toolKind: 'execute', decision: 'allow' }]);
  });
});
