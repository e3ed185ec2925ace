import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeParser } from '../../../src/main/core/history-import/parsers/claude-code';
import { codexParser } from '../../../src/main/core/history-import/parsers/codex';
import { geminiCliParser } from '../../../src/main/core/history-import/parsers/gemini-cli';
import { qwenCodeParser } from '../../../src/main/core/history-import/parsers/qwen-code';
import type { LineParser, SessionMeta, TranscriptItem } from '../../../src/main/core/history-import/parsers/types';
import { toolShape } from '../../../src/main/core/history-import/transcript';

const FIXTURES = join(__dirname, '../../fixtures/agent-histories');

function jsonlFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl')).map((f) => join(dir, f));
}

function parse<S>(parser: LineParser<S>, file: string): { items: TranscriptItem[]; meta: SessionMeta } {
  const state = parser.initialState();
  const items: TranscriptItem[] = [];
  let meta: SessionMeta = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const r = parser.record(state, JSON.parse(line), 0);
    items.push(...r.items);
    meta = { ...meta, ...r.meta };
  }
  return { items, meta };
}

/** The fixture session with a conversation (Gemini also stored an empty one). */
function conversation<S>(parser: LineParser<S>, dir: string) {
  const parsed = jsonlFiles(join(FIXTURES, dir)).map((f) => parse(parser, f));
  const withPrompts = parsed.filter((p) => p.items.some((i) => i.type === 'prompt'));
  expect(withPrompts).toHaveLength(1);
  return withPrompts[0]!;
}

const prompts = (items: TranscriptItem[]) => items.flatMap((i) => (i.type === 'prompt' ? [i.text] : []));
const calls = (items: TranscriptItem[]) => items.flatMap((i) => (i.type === 'tool_call' ? [i] : []));
const results = (items: TranscriptItem[]) => items.flatMap((i) => (i.type === 'tool_result' ? [i] : []));

describe("the agents' own session files, as the real agents wrote them", () => {
  it.each([
    ['Claude Code', claudeCodeParser, 'claude-code-0.16.0', 'marmalade-claude-code'],
    ['Claude Agent 0.101 (Claude Code 2.1.318, with its bookkeeping records)', claudeCodeParser, 'claude-agent-0.101.0', 'marmalade-claude-agent'],
    ['Gemini CLI', geminiCliParser, 'gemini-0.61.0', 'marmalade-gemini'],
    ['Qwen Code', qwenCodeParser, 'qwen-0.24.4', 'marmalade-qwen'],
  ] as const)('%s: both prompts, the write with its diff, the shell command with its output, the session id and folder', (_name, parser, dir, marker) => {
    const { items, meta } = conversation(parser as LineParser<unknown>, dir);
    expect(prompts(items)).toEqual(['Please write the notes and list the folder', 'Thanks, that is all']);
    const [write, shell] = calls(items);
    expect(toolShape(write!.name, write!.input)).toMatchObject({ kind: 'edit', content: [{ type: 'diff', newText: 'The quarterly zephyr report\n' }] });
    expect(toolShape(write!.name, write!.input).title).toMatch(/notes\.md$/);
    expect(toolShape(shell!.name, shell!.input)).toMatchObject({ kind: 'execute', title: expect.stringContaining(`echo ${marker}`) });
    // Each call has its result, matched by id; the shell's output is there.
    expect(results(items).map((r) => r.id)).toEqual([write!.id, shell!.id]);
    expect(results(items)[1]!.output).toContain(marker);
    expect(meta.agentSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.cwd ?? '').toMatch(/^\/tmp\/sb-fixture-/);
    // The agent's replies are there, and nothing was left as an unknown record.
    expect(items.some((i) => i.type === 'agent' && i.text.includes('fake-llm'))).toBe(true);
    expect(items.filter((i) => i.type === 'unknown')).toEqual([]);
  });

  it('Gemini CLI: a message written again with its tool results adds only what is new', () => {
    const { items } = conversation(geminiCliParser as LineParser<unknown>, 'gemini-0.61.0');
    const ids = calls(items).map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(items.filter((i) => i.type === 'agent' && i.text.startsWith('Step 1/2'))).toHaveLength(1);
  });
});

describe('Codex rollouts (the format of codex-rs/protocol)', () => {
  const { items, meta } = conversation(codexParser as LineParser<unknown>, 'codex-0.63.0');

  it('reads the session, leaves out what Codex sends on its own, and pairs calls with outputs', () => {
    expect(meta).toEqual({ agentSessionId: '0199e4a1-7c2d-7d40-9f0e-5b3a2c1d0e9f', cwd: '/home/dev/inventory', version: '0.63.0' });
    expect(prompts(items)).toEqual(['Find why the stock report double-counts returns and fix it', 'Run the tests']);
    expect(items.filter((i) => i.type === 'thought').map((i) => (i as { text: string }).text)).toEqual(['**Looking for the report code**']);
    const [grep, patch, tests] = calls(items);
    expect(toolShape(grep!.name, grep!.input)).toMatchObject({ kind: 'execute', title: 'Run: bash -lc grep -rn "returns" src/report | head' });
    expect(toolShape(patch!.name, patch!.input).kind).toBe('edit');
    expect(toolShape(tests!.name, tests!.input).title).toBe('Run: pytest -q');
    expect(results(items).map((r) => [r.id, r.failed])).toEqual([
      ['call_Qm2x7Hc1', false],
      ['call_Ap7Lk2Rt', false],
      ['call_Ls9', true],
    ]);
    expect(results(items)[0]!.output).toBe('src/report/stock.py:41:    total += returns_quillfeather\n');
  });

  it('takes off the header Codex writes for the model, and a non-zero exit code it names fails the command', () => {
    const output = (o: unknown, type = 'function_call_output') => {
      const r = codexParser.record({}, { timestamp: '2026-03-14T09:13:00.000Z', type: 'response_item', payload: { type, call_id: 'c1', output: o } }, 0);
      const item = r.items[0] as Extract<TranscriptItem, { type: 'tool_result' }>;
      return { output: item.output, failed: item.failed };
    };
    // Its shell tools (format_exec_output_for_model_freeform).
    expect(output('Exit code: 2\nWall time: 0.3 seconds\nOutput:\nls: cannot access \'nope\': No such file or directory\n')).toEqual({
      output: "ls: cannot access 'nope': No such file or directory\n",
      failed: true,
    });
    expect(output('Exit code: 0\nWall time: 1.2 seconds\nTotal output lines: 400\nOutput:\nok\n')).toEqual({ output: 'ok\n', failed: false });
    expect(output('Exit code: 1\nWall time: 0 seconds\nOutput:\npatch failed', 'custom_tool_call_output')).toEqual({ output: 'patch failed', failed: true });
    // exec_command (unified exec: format_response).
    expect(output('Chunk ID: 4f2a\nWall time: 0.0123 seconds\nProcess exited with code 127\nOriginal token count: 9\nOutput:\nsh: 1: frob: not found\n')).toEqual({
      output: 'sh: 1: frob: not found\n',
      failed: true,
    });
    expect(output('Chunk ID: 4f2a\nWall time: 10.0000 seconds\nProcess running with session ID 3\nOutput:\nstill going')).toEqual({ output: 'still going', failed: false });
    expect(output({ content: 'Exit code: 3\nWall time: 0.1 seconds\nOutput:\nboom' })).toEqual({ output: 'boom', failed: true });
    // Text that only looks like a header is the output itself.
    expect(output('Exit code: 2 is what the docs say\nOutput:\nx')).toEqual({ output: 'Exit code: 2 is what the docs say\nOutput:\nx', failed: false });
    expect(output('Exit code: 2\nOutput:\nx')).toEqual({ output: 'Exit code: 2\nOutput:\nx', failed: false });
  });

  it('keeps a record of a newer kind as text instead of failing', () => {
    const unknown = items.filter((i) => i.type === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ kind: 'response_item future_item_kind', text: expect.stringContaining('a record this parser does not know') });
  });
});
