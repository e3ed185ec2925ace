// Turns a script (a list of steps) into replies, statelessly: the step to play is the number of tool results
// that came back since the current prompt, read from the conversation the agent sends. Retries, side calls and
// parallel sessions therefore cannot desynchronise a script.

import type { JsonSchema, LlmReply, LlmRequest, ScriptStep, ToolSpec } from './types.js';

/** Tool names per intent, most specific first: an ACP-routed tool wins over the agent's built-in one. */
export const WRITE_TOOL_NAMES = ['mcp__acp__Write', 'Write', 'write_file', 'WriteFile', 'create_file', 'write'];
export const SHELL_TOOL_NAMES = ['mcp__acp__Bash', 'Bash', 'run_shell_command', 'shell', 'bash', 'execute_command'];

const PATH_KEYS = ['file_path', 'absolute_path', 'path', 'filePath', 'filename'];
const CONTENT_KEYS = ['content', 'contents', 'text', 'file_text'];
const COMMAND_KEYS = ['command', 'cmd'];

export function findTool(tools: ToolSpec[], names: string[]): ToolSpec | undefined {
  for (const name of names) {
    const hit = tools.find((t) => t.name === name);
    if (hit) return hit;
  }
  // Case-insensitive fallback for agents that rename tools slightly.
  for (const name of names) {
    const hit = tools.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (hit) return hit;
  }
  return undefined;
}

function schemaProps(schema: JsonSchema): Record<string, JsonSchema> {
  const props = schema['properties'];
  return props && typeof props === 'object' ? (props as Record<string, JsonSchema>) : {};
}

function schemaRequired(schema: JsonSchema): string[] {
  const req = schema['required'];
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

function pickKey(schema: JsonSchema, candidates: string[]): string {
  const props = Object.keys(schemaProps(schema));
  return candidates.find((c) => props.includes(c)) ?? candidates[0]!;
}

/** Fills required properties the script did not set, so a strict agent-side validator accepts the call. */
function fillRequired(schema: JsonSchema, args: Record<string, unknown>, hint: string): Record<string, unknown> {
  const props = schemaProps(schema);
  for (const key of schemaRequired(schema)) {
    if (key in args) continue;
    const prop = props[key] ?? {};
    args[key] = key === 'description' ? hint : sampleFromSchema(prop, key);
  }
  return args;
}

export function buildWriteArgs(tool: ToolSpec, path: string, content: string): Record<string, unknown> {
  const args: Record<string, unknown> = {
    [pickKey(tool.schema, PATH_KEYS)]: path,
    [pickKey(tool.schema, CONTENT_KEYS)]: content,
  };
  return fillRequired(tool.schema, args, `Write ${path}`);
}

export function buildShellArgs(tool: ToolSpec, command: string, description?: string): Record<string, unknown> {
  const args: Record<string, unknown> = { [pickKey(tool.schema, COMMAND_KEYS)]: command };
  if (description !== undefined || 'description' in schemaProps(tool.schema)) {
    args['description'] = description ?? 'Run a shell command for the test';
  }
  return fillRequired(tool.schema, args, 'Run a shell command for the test');
}

/** A value that satisfies a (simple) JSON schema: objects with their properties, first enum value, etc. */
export function sampleFromSchema(schema: unknown, key?: string): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as JsonSchema;
  if ('const' in s) return s['const'];
  if ('default' in s) return s['default'];
  const en = s['enum'];
  if (Array.isArray(en) && en.length > 0) {
    // Gemini's next-speaker check: let the user speak, or the agent would keep prompting itself.
    if (key === 'next_speaker' && en.includes('user')) return 'user';
    return en[0];
  }
  for (const comb of ['anyOf', 'oneOf', 'allOf']) {
    const alts = s[comb];
    if (Array.isArray(alts) && alts.length > 0) return sampleFromSchema(alts[0], key);
  }
  let type = s['type'];
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  switch (typeof type === 'string' ? type.toLowerCase() : 'object') {
    case 'string':
      return `fake ${key ?? 'value'}`;
    case 'number':
    case 'integer':
      // A zero timeout makes a shell tool time out at once (Claude Code's mcp__acp__Bash requires one).
      return key && /timeout/i.test(key) ? 120_000 : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schemaProps(s))) out[k] = sampleFromSchema(v, k);
      return out;
    }
  }
}

export function defaultFinalText(req: LlmRequest, steps: number): string {
  const last = req.toolResults.at(-1);
  return last
    ? `fake-llm: all ${steps} step(s) done. Last tool result: ${last.output}`
    : 'fake-llm: hello from the fake LLM.';
}

const LOREM = 'The quick brown fox jumps over the lazy dog. ';

/**
 * The reply for a turn request under `steps`. Step index = tool results since the prompt; text steps end the
 * turn; past the end of the script a final text reports the last tool result (handy for assertions).
 */
export function replyFromScript(req: LlmRequest, steps: ScriptStep[]): { reply: LlmReply; problem?: string } {
  const index = req.toolResults.length;
  const step = steps[index];
  if (!step) return { reply: { type: 'text', text: defaultFinalText(req, steps.length) } };
  const names = req.tools.map((t) => t.name);
  const noTool = (intent: string, candidates: string[]) => {
    const problem = `no ${intent} tool among [${names.join(', ')}] (looked for ${candidates.join(', ')})`;
    return { reply: { type: 'text' as const, text: `fake-llm: ${problem}` }, problem };
  };
  const prefix = (say: string | undefined, toolName: string) =>
    say ?? `Step ${index + 1}/${steps.length}: calling ${toolName}.`;
  switch (step.kind) {
    case 'write': {
      const tool = findTool(req.tools, WRITE_TOOL_NAMES);
      if (!tool) return noTool('write', WRITE_TOOL_NAMES);
      return {
        reply: {
          type: 'tool_call',
          name: tool.name,
          args: buildWriteArgs(tool, step.path, step.content),
          text: prefix(step.say, tool.name),
        },
      };
    }
    case 'shell': {
      const tool = findTool(req.tools, SHELL_TOOL_NAMES);
      if (!tool) return noTool('shell', SHELL_TOOL_NAMES);
      return {
        reply: {
          type: 'tool_call',
          name: tool.name,
          args: buildShellArgs(tool, step.command, step.description),
          text: prefix(step.say, tool.name),
        },
      };
    }
    case 'tool': {
      const tool = findTool(req.tools, step.names);
      if (!tool) return noTool('matching', step.names);
      const args = typeof step.args === 'function' ? step.args(tool) : { ...step.args };
      return { reply: { type: 'tool_call', name: tool.name, args, text: prefix(step.say, tool.name) } };
    }
    case 'text':
      return { reply: { type: 'text', text: step.text } };
    case 'slow': {
      const chunks = step.chunks ?? 300;
      const text = step.text ?? LOREM.repeat(Math.ceil((chunks * 8) / LOREM.length)).slice(0, chunks * 8);
      return {
        reply: {
          type: 'text',
          text,
          chunkDelayMs: step.chunkDelayMs ?? 100,
          chunkSize: Math.max(1, Math.ceil(text.length / chunks)),
        },
      };
    }
  }
}

/**
 * Steps written inline in a prompt, for flows driven by typing into a UI:
 *   <<write:/abs/path:content>>  <<shell:command>>  <<text:reply>>  <<slow:MS>> (a reply streamed over ~MS ms)
 * Returns undefined when the prompt has no directive.
 */
export function stepsFromPrompt(prompt: string): ScriptStep[] | undefined {
  const steps: ScriptStep[] = [];
  const re = /<<(write|shell|text|slow):([\s\S]*?)>>/g;
  for (const m of prompt.matchAll(re)) {
    const kind = m[1]!;
    const body = m[2]!;
    if (kind === 'write') {
      const sep = body.indexOf(':', body.startsWith('/') ? 1 : 0);
      if (sep < 0) continue;
      steps.push({ kind: 'write', path: body.slice(0, sep), content: body.slice(sep + 1) });
    } else if (kind === 'shell') {
      steps.push({ kind: 'shell', command: body });
    } else if (kind === 'text') {
      steps.push({ kind: 'text', text: body });
    } else {
      const ms = Number.parseInt(body, 10);
      const total = Number.isFinite(ms) && ms > 0 ? ms : 30_000;
      steps.push({ kind: 'slow', chunks: Math.max(1, Math.round(total / 100)), chunkDelayMs: 100 });
    }
  }
  return steps.length > 0 ? steps : undefined;
}
