import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

interface TerminalReply {
  ok: boolean;
  terminalId: string;
  exit: { exitCode: number | null; signal: string | null };
  output: string;
  truncated: boolean;
  afterRelease: { ok: boolean; code?: number };
}

async function runTerminal(sessionId: string, spec: object): Promise<TerminalReply> {
  const before = t.rec.updates().length;
  await promptAndWait(t, sessionId, `terminal ${JSON.stringify(spec)}`);
  const last = t.rec
    .updates()
    .slice(before)
    .filter((p) => p.event.type === 'update' && p.event.update.sessionUpdate === 'agent_message_chunk')
    .at(-1)!.event;
  if (last.type !== 'update' || last.update.sessionUpdate !== 'agent_message_chunk' || last.update.content.type !== 'text') throw new Error('no reply');
  return JSON.parse(last.update.content.text) as TerminalReply;
}

describe('agent terminals', () => {
  it('runs a command: output streamed, exit code, byte limit cut at a character boundary, gone after release', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    // 40 × "é€" (2 + 3 bytes) then END; 31 bytes kept: the cut must not split a character.
    const script = `for i in $(seq 1 40); do printf 'é€'; done; printf 'END'; exit 7`;
    const r = await runTerminal(s.id, { command: 'sh', args: ['-c', script], outputByteLimit: 31 });
    expect(r.exit).toEqual({ exitCode: 7, signal: null });
    expect(r.truncated).toBe(true);
    expect(r.output.endsWith('END')).toBe(true);
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(31);
    expect(r.output).not.toContain('\uFFFD');
    expect(r.output.replace(/END$/, '')).toMatch(/^(?:€?)(?:é€)*$|^(?:é€)*$/);
    // After release the id is no longer valid for the agent…
    expect(r.afterRelease).toMatchObject({ ok: false, code: -32002 });
    // …but its output stays viewable for the tool call, and it was streamed live.
    const snap = await t.call('agentTerminal.snapshot', { terminalId: r.terminalId });
    expect(snap).toMatchObject({ sessionId: s.id, released: true, exit: { exitCode: 7, signal: null } });
    expect(snap.output.endsWith('END')).toBe(true);
    const streamed = t.rec
      .of('agentTerminal.data')
      .filter((d) => d.terminalId === r.terminalId)
      .map((d) => d.data)
      .join('');
    expect(streamed).toContain('END');
    expect(t.rec.of('agentTerminal.exit')).toContainEqual({ terminalId: r.terminalId, sessionId: s.id, exitCode: 7, signal: null });
    // The tool call embeds the terminal.
    const state = await t.call('sessions.state', { sessionId: s.id });
    const tool = state.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.content).toEqual([{ type: 'terminal', terminalId: r.terminalId }]);
  });

  it('passes env and cwd, runs a bare command line through the shell, and kills on request', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const r = await runTerminal(s.id, { command: 'echo "$GREETING from $(pwd)"', env: { GREETING: 'hi' }, cwd: '/tmp' });
    expect(r.exit.exitCode).toBe(0);
    expect(r.output).toContain('hi from /tmp');
    expect(r.output).not.toContain('\r');
    const killed = await runTerminal(s.id, { command: 'sleep', args: ['30'], kill: true });
    expect(killed.exit.exitCode).toBeNull();
    expect(killed.exit.signal).toMatch(/^SIG/);
    const bad = await runTerminal(s.id, { command: 'true', cwd: '/definitely/not/here' });
    expect(bad.ok).toBe(false);
  });

  it('keeps the output of a terminal the client never created (trap 7) in the tool call', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'terminal-meta');
    const state = await t.call('sessions.state', { sessionId: s.id });
    const tool = state.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.metaTerminals).toEqual({ toolu_meta1: { output: 'META-OUTPUT\n', exit: { exitCode: 0, signal: null } } });
    expect(tool?.kind === 'tool_call' && tool.status).toBe('completed');
    expect((await t.callError('agentTerminal.snapshot', { terminalId: 'toolu_meta1' })).code).toBe('not_found');
  });
});
