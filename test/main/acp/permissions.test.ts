import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
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
  it('asks the user, remembers "always" for that request\'s scope, answers it with "once", and can forget it', async () => {
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
    // The request named neither a command nor a path: the rule is for its exact title, in this folder.
    expect(rules).toMatchObject([
      { agentId, toolKind: 'edit', decision: 'allow', label: 'Always allow', scope: { subject: 'title', match: 'exact', pattern: 'Do a edit thing', folder: t.work, sessionId: null } },
    ]);

    // 2. Same agent, kind and title, in a new session: answered by the rule with the agent's "once" option.
    const s2 = await t.call('sessions.create', { agentId, cwd: t.work });
    p = await ask(s2.id, 'edit');
    await turnEnd(t, s2.id, p.promptId);
    expect(t.rec.of('session.permission').length).toBe(p.before);
    expect(agentText(t.rec, s2.id)).toContain('permission: selected yes-just-once');
    expect(t.rec.of('session.permissionResolved').at(-1)).toMatchObject({ sessionId: s2.id, byRule: true, optionId: 'yes-just-once' });

    // 3. Another kind is still asked; reject_always makes a reject rule.
    p = await ask(s2.id, 'execute');
    const req2 = await t.rec.until(() => t.rec.of('session.permission')[p.before], 'a second permission request');
    const never = req2.options.find((o) => o.kind === 'reject_always')!;
    await t.call('sessions.respondPermission', { sessionId: s2.id, requestId: req2.requestId, outcome: 'selected', optionId: never.optionId });
    await turnEnd(t, s2.id, p.promptId);
    p = await ask(s2.id, 'execute');
    await turnEnd(t, s2.id, p.promptId);
    expect(t.rec.of('session.permission').length).toBe(p.before);
    expect(agentText(t.rec, s2.id)).toContain('permission: selected nope');

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

describe('scoped rules', () => {
  const run = async (sessionId: string, command: string) => {
    const before = t.rec.of('session.permission').length;
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: `ask-run ${command}` }] });
    return { promptId, before };
  };
  const asked = (p: { before: number }) => t.rec.until(() => t.rec.of('session.permission')[p.before], 'a permission request');

  it('"don\'t ask again for echo commands" answers later echo commands in this folder only, with "once", and the thread says so after a reopen', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    let p = await run(s.id, 'echo always > a.txt');
    const req = await asked(p);
    expect(req.options.find((o) => o.kind === 'allow_always')?.name).toBe(`Yes, and don't ask again for echo commands in ${basename(t.work)}`);
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'allow-always' });
    await turnEnd(t, s.id, p.promptId);
    const [rule] = (await t.call('permissionRules.list', { agentId })).rules;
    expect(rule).toMatchObject({ toolKind: 'execute', scope: { subject: 'command', match: 'prefix', pattern: 'echo', folder: t.work, sessionId: null } });

    // Another command still asks.
    p = await run(s.id, 'rm -rf x');
    const rm = await asked(p);
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: rm.requestId, outcome: 'selected', optionId: 'reject' });
    await turnEnd(t, s.id, p.promptId);

    // Another echo is answered by the rule, with "allow once": the agent stores nothing more.
    p = await run(s.id, 'echo again');
    await turnEnd(t, s.id, p.promptId);
    expect(t.rec.of('session.permission').length).toBe(p.before);
    expect(agentText(t.rec, s.id)).toContain('ask-run echo again: selected allow-once');
    const ruled = () =>
      t.call('sessions.state', { sessionId: s.id }).then((st) => st.thread.entries.flatMap((e) => (e.kind === 'tool_call' && e.ruled ? [[e.title, e.ruled.ruleId, e.ruled.decision]] : [])));
    expect(await ruled()).toEqual([['`echo again`', rule!.id, 'allow']]);

    // The answer is in the session's log: a reopened session still shows which rule answered.
    await t.call('sessions.close', { sessionId: s.id });
    await t.call('sessions.reopen', { sessionId: s.id });
    expect(await ruled()).toEqual([['`echo again`', rule!.id, 'allow']]);

    // Another project folder still asks.
    const other = join(t.work, '..', 'other-project');
    mkdirSync(other, { recursive: true });
    const s3 = await t.call('sessions.create', { agentId, cwd: other });
    p = await run(s3.id, 'echo again');
    const elsewhere = await asked(p);
    await t.call('sessions.respondPermission', { sessionId: s3.id, requestId: elsewhere.requestId, outcome: 'cancelled' });
    await turnEnd(t, s3.id, p.promptId);
  });

  it('asks the user when the agent offers only "always" for what a rule would answer, and says why', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await t.call('permissionRules.set', { agentId, toolKind: 'edit', decision: 'allow', scope: { subject: 'title', match: 'exact', pattern: 'Do a edit thing', folder: t.work, sessionId: null } });
    const onlyAlways = JSON.stringify([
      { optionId: 'yes-forever', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'nope', name: 'Reject', kind: 'reject_once' },
    ]);
    const before = t.rec.of('session.permission').length;
    const { promptId } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: `permission edit ${onlyAlways}` }] });
    const req = await t.rec.until(() => t.rec.of('session.permission')[before], 'the question');
    const tool = (await t.call('sessions.state', { sessionId: s.id })).thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.permission?.note).toMatch(/offers only “always” options/);
    await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'nope' });
    await turnEnd(t, s.id, promptId);
  });

  it('refuses, in the main process, the "always" rule of an option whose label hides direction controls or look-alike letters', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    // "Reject" written backwards after a right-to-left override, and variants of the class.
    const labels = ['\u202Etcejer', '\u202Etcejer\u202C', 'Allow\u202E', '\u2067tcejeR\u2069', 'R\u0435ject', 'Ｒｅｊｅｃｔ', 'Al\u200Dlow', '\u202Dwolla\u202C'];
    for (const name of labels) {
      const options = JSON.stringify([
        { optionId: 'yes-sneaky', name, kind: 'allow_always' },
        { optionId: 'nope', name: 'No', kind: 'reject_once' },
      ]);
      const before = t.rec.of('session.permission').length;
      const { promptId } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: `permission execute ${options}` }] });
      const req = await t.rec.until(() => t.rec.of('session.permission')[before], 'the question');
      const err = await t.callError('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'yes-sneaky', confirmMismatch: true });
      expect({ name, code: err.code }).toEqual({ name, code: 'conflict' });
      expect(err.message).toMatch(/direction controls|look-alike|invisible/);
      expect((await t.call('sessions.state', { sessionId: s.id })).permissions.map((x) => x.requestId)).toEqual([req.requestId]);
      await t.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'nope' });
      await turnEnd(t, s.id, promptId);
    }
    expect((await t.call('permissionRules.list', { agentId })).rules).toEqual([]);
  });

  it('the contract refuses a rule wider than allowed, and every part of a rule can be changed', async () => {
    const agentId = await t.addAgent();
    const scope = { subject: 'command', match: 'prefix', pattern: 'echo', folder: t.work, sessionId: null } as const;
    for (const wide of [{ ...scope, pattern: '*' }, { ...scope, folder: '/' }, { ...scope, subject: 'path', match: 'glob', pattern: '/**' }, { ...scope, pattern: 'echo \u202E' }]) {
      const err = await t.callError('permissionRules.set', { agentId, toolKind: 'execute', decision: 'allow', scope: wide });
      expect(err.code).toBe('invalid_params');
    }
    const { rule } = await t.call('permissionRules.set', { agentId, toolKind: 'execute', decision: 'allow', scope });
    const changed = await t.call('permissionRules.set', {
      id: rule.id,
      agentId,
      toolKind: 'edit',
      decision: 'reject',
      scope: { subject: 'path', match: 'glob', pattern: `${t.work}/src/**`, folder: t.work, sessionId: 's-1' },
    });
    expect(changed.rule).toMatchObject({ id: rule.id, toolKind: 'edit', decision: 'reject', scope: { pattern: `${t.work}/src/**`, sessionId: 's-1' } });
    expect((await t.call('permissionRules.list', { agentId })).rules).toHaveLength(1);
  });
});
