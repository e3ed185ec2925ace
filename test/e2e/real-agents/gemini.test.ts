// Gemini CLI 0.61.0 driven for real against the fake LLM. Skipped unless installed:
// `node scripts/install-test-agents.mjs gemini`.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentAvailable, expectCancelStopsStreamingTurn, useHarness, type Harness } from './harness.js';

const installed = agentAvailable('gemini');

describe.skipIf(!installed)('Gemini CLI 0.61 (real agent, fake LLM)', () => {
  const harness = useHarness('gemini');
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('writes a new file through client fs after permission and runs a shell command', async () => {
    const file = join(h.workspace, 'gemini-hello.txt');
    const copy = join(h.workspace, 'gemini-copy.txt');
    h.llm.when('make hello', [
      { kind: 'write', path: file, content: 'Hello from Gemini' },
      { kind: 'shell', command: `cat ${file} > ${copy} && echo SHELL-OK` },
    ]);
    // Compatibility: Gemini 0.61 reads a file before writing it and cannot tell "missing" from any failure.
    const s = await h.newSession({ missingFileAsEmpty: true });
    const res = await s.prompt('please make hello');
    const diag = h.diagnostics();

    expect(res.stopReason, diag).toBe('end_turn');
    const write = s.client.toolCalls().find((t) => t['kind'] === 'edit');
    expect(write?.['content'], diag).toEqual([
      expect.objectContaining({ type: 'diff', path: file, oldText: '', newText: 'Hello from Gemini' }),
    ]);
    expect(write?.['status']).toBe('completed');
    // The missing file was read (answered empty), then written through fs/write_text_file.
    expect(s.client.events.some((e) => e.type === 'fs_read' && e.path === file && e.result === 'missing-as-empty')).toBe(true);
    expect(s.client.events.some((e) => e.type === 'fs_write' && e.path === file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('Hello from Gemini');
    // Both tools asked permission; Gemini's option ids differ from Claude's, we answered by kind.
    const answers = s.client.events.flatMap((e) => (e.type === 'permission' ? [e.answer] : []));
    expect(answers, diag).toEqual(['proceed_once', 'proceed_once']);
    // Gemini runs shell commands itself (no client terminal); the output went back to the model.
    expect(s.client.events.some((e) => e.type === 'terminal_create')).toBe(false);
    // The command ran (its effect is on disk) and its result went back to the model. Its printed output is not
    // asserted: Gemini reads its pty for two ticks after the command exits, and on a busy machine drops what comes later.
    expect(readFileSync(copy, 'utf8')).toBe('Hello from Gemini');
    expect(s.client.agentText(), diag).toMatch(/Last tool result: <untrusted_context>\s*Output:[\s\S]*Process Group PGID/);
  }, 120_000);

  it('fails a new-file write when the read of the missing file is answered with an error (0.61 quirk)', async () => {
    const file = join(h.workspace, 'strict.txt');
    h.llm.when('strict write', [{ kind: 'write', path: file, content: 'never written' }]);
    const s = await h.newSession({ missingFileAsEmpty: false });
    const res = await s.prompt('strict write');

    expect(res.stopReason, h.diagnostics()).toBe('end_turn');
    expect(s.client.events.some((e) => e.type === 'fs_read' && e.path === file && e.result === 'error')).toBe(true);
    expect(s.client.events.some((e) => e.type === 'fs_write')).toBe(false);
    expect(existsSync(file)).toBe(false);
  }, 120_000);

  it('stops a streaming turn on session/cancel with stopReason cancelled', () => expectCancelStopsStreamingTurn(h), 120_000);
});
