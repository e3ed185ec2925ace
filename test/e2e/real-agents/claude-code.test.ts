// Claude Code (the ACP Registry's entry, @zed-industries/claude-code-acp 0.16.0) driven for real against the
// fake LLM. Skipped unless installed: `node scripts/install-test-agents.mjs claude-code`.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentAvailable, expectCancelStopsStreamingTurn, useHarness, type Harness } from './harness.js';

const installed = agentAvailable('claude-code');

describe.skipIf(!installed)('Claude Code 0.16 (real agent, fake LLM)', () => {
  const harness = useHarness('claude-code');
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('writes a file through client fs after permission and runs a command in a client terminal', async () => {
    const file = join(h.workspace, 'hello.txt');
    h.llm.when('make hello', [
      { kind: 'write', path: file, content: 'Hello from Claude Code' },
      { kind: 'shell', command: `cat ${file} && echo SHELL-OK` },
    ]);
    const s = await h.newSession();
    const res = await s.prompt('please make hello');
    const diag = h.diagnostics();

    expect(res.stopReason, diag).toBe('end_turn');
    // The write is announced as a tool call carrying a diff for the new file.
    const write = s.client.toolCalls().find((t) => t['kind'] === 'edit');
    expect(write?.['content'], diag).toEqual([
      expect.objectContaining({ type: 'diff', path: file, newText: 'Hello from Claude Code' }),
    ]);
    // Both tools asked permission; we picked the allow_once option by kind (Claude Code's id: `allow`).
    const answers = s.client.events.flatMap((e) => (e.type === 'permission' ? [e.answer] : []));
    expect(answers, diag).toEqual(['allow', 'allow']);
    // The file reached disk through fs/write_text_file (Claude Code does not write it itself).
    expect(s.client.events.some((e) => e.type === 'fs_write' && e.path === file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('Hello from Claude Code');
    // The command ran in a client terminal; its output went back to the model and into the final answer.
    const created = s.client.events.find((e) => e.type === 'terminal_create');
    expect(created, diag).toMatchObject({ command: `cat ${file} && echo SHELL-OK` });
    expect(s.client.events.some((e) => e.type === 'terminal_output' && e.output.includes('SHELL-OK'))).toBe(true);
    expect(s.client.agentText(), diag).toContain(
      'Last tool result: Exited with code 0.Final output:\n\nHello from Claude CodeSHELL-OK',
    );
  }, 120_000);

  it('leaves the disk untouched when the write is rejected', async () => {
    const file = join(h.workspace, 'rejected.txt');
    h.llm.when('try rejected', [{ kind: 'write', path: file, content: 'must not be written' }]);
    const s = await h.newSession({ choosePermission: () => 'reject_once' });
    const res = await s.prompt('try rejected');

    expect(res.stopReason, h.diagnostics()).toBe('end_turn');
    const permission = s.client.events.find((e) => e.type === 'permission');
    expect(permission && permission.type === 'permission' ? permission.answer : undefined).toBe('reject');
    expect(s.client.events.some((e) => e.type === 'fs_write')).toBe(false);
    expect(existsSync(file)).toBe(false);
    // The tool call ends failed, and the turn ends there (Claude Code does not go back to the model).
    const write = s.client.toolCalls().find((t) => t['kind'] === 'edit');
    expect(write?.['status'], h.diagnostics()).toBe('failed');
  }, 120_000);

  it('stops a streaming turn on session/cancel with stopReason cancelled', () => expectCancelStopsStreamingTurn(h), 120_000);
});
