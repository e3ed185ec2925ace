// Qwen Code 0.24.4 driven for real against the fake LLM (OpenAI Chat Completions). Skipped unless installed:
// `node scripts/install-test-agents.mjs qwen`.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentAvailable, expectCancelStopsStreamingTurn, useHarness, type Harness } from './harness.js';

const installed = agentAvailable('qwen');

describe.skipIf(!installed)('Qwen Code 0.24 (real agent, fake LLM)', () => {
  const harness = useHarness('qwen');
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('asks permission in mode default, writes through client fs and runs a shell command', async () => {
    const file = join(h.workspace, 'qwen-hello.txt');
    const copy = join(h.workspace, 'qwen-copy.txt');
    h.llm.when('make hello', [
      { kind: 'write', path: file, content: 'Hello from Qwen' },
      { kind: 'shell', command: `cat ${file} > ${copy} && echo SHELL-OK` },
    ]);
    const s = await h.newSession();
    // Qwen starts in `auto` (edits and commands without asking).
    expect(s.response.modes?.currentModeId).toBe('auto');
    await s.setMode('default');
    const res = await s.prompt('please make hello');
    const diag = h.diagnostics();

    expect(res.stopReason, diag).toBe('end_turn');
    const write = s.client.toolCalls().find((t) => t['kind'] === 'edit');
    expect(write?.['content'], diag).toEqual([
      expect.objectContaining({ type: 'diff', path: file, newText: 'Hello from Qwen' }),
    ]);
    // In mode default both ask: the write, and the command (it writes a file through a redirect).
    const permissions = s.client.events.flatMap((e) => (e.type === 'permission' ? [e] : []));
    expect(permissions.map((p) => [p.request.toolCall.kind, p.answer]), diag).toEqual([
      ['edit', 'proceed_once'],
      ['execute', 'proceed_once'],
    ]);
    expect(readFileSync(file, 'utf8')).toBe('Hello from Qwen');
    expect(s.client.events.some((e) => e.type === 'fs_write' && e.path === file)).toBe(true);
    // The command ran (its effect is on disk) and its result went back to the model. Its printed output is not
    // asserted: Qwen reads its pty for two ticks after the command exits, and on a busy machine drops what comes later.
    expect(readFileSync(copy, 'utf8')).toBe('Hello from Qwen');
    expect(s.client.agentText(), diag).toMatch(/Last tool result: Command: cat .*qwen-hello\.txt > [\s\S]*Exit Code: 0/);
    // Mid-turn Qwen sends a custom request (not `_`-prefixed); answered -32601, the turn carried on.
    expect(s.client.events.some((e) => e.type === 'unknown_request' && e.method === 'craft/drainMidTurnQueue')).toBe(true);
  }, 120_000);

  it('stops a streaming turn on session/cancel with stopReason cancelled', () => expectCancelStopsStreamingTurn(h), 120_000);
});
