// OpenAI Chat Completions (`POST /v1/chat/completions`, streamed or not), as Qwen Code speaks it.

import type { ConvMessage, ConvPart, JsonSchema, LlmReply, ToolSpec } from '../types.js';
import { asArray, asRecord, asString, flattenText, type ParsedBody, randomId, type ReplySink } from './common.js';

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function parseOpenAi(body: Record<string, unknown>): ParsedBody {
  const tools: ToolSpec[] = [];
  for (const t of asArray(body['tools']).map(asRecord)) {
    const fn = asRecord(t['function']);
    if (typeof fn['name'] === 'string') tools.push({ name: fn['name'], schema: asRecord(fn['parameters']) });
  }
  const messages: ConvMessage[] = [];
  let system = '';
  for (const m of asArray(body['messages']).map(asRecord)) {
    const role = asString(m['role']);
    if (role === 'system' || role === 'developer') {
      system += flattenText(m['content']);
      continue;
    }
    const partsOut: ConvPart[] = [];
    if (role === 'tool') {
      partsOut.push({ type: 'tool_result', id: asString(m['tool_call_id']), output: flattenText(m['content']) });
      messages.push({ role: 'tool', parts: partsOut });
      continue;
    }
    const text = flattenText(m['content']);
    if (text !== '') partsOut.push({ type: 'text', text });
    for (const c of asArray(m['tool_calls']).map(asRecord)) {
      const fn = asRecord(c['function']);
      partsOut.push({ type: 'tool_call', id: asString(c['id']), name: asString(fn['name']), args: parseArgs(fn['arguments']) });
    }
    messages.push({ role: role === 'assistant' ? 'assistant' : 'user', parts: partsOut });
  }
  const format = asRecord(body['response_format']);
  const schema = asRecord(format['json_schema'])['schema'];
  return {
    model: asString(body['model']),
    stream: body['stream'] === true,
    tools,
    messages,
    system,
    responseSchema: schema && typeof schema === 'object' ? (schema as JsonSchema) : undefined,
  };
}

export async function renderOpenAi(model: string, stream: boolean, reply: LlmReply, sink: ReplySink): Promise<void> {
  if (reply.type === 'error') {
    sink.json(reply.status, { error: { message: reply.message, type: 'server_error', code: null } });
    return;
  }
  const text =
    reply.type === 'text'
      ? reply.text
      : reply.type === 'json'
        ? JSON.stringify(reply.value)
        : (reply.text ?? '');
  const call =
    reply.type === 'tool_call'
      ? { id: `call_${randomId()}`, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.args) } }
      : undefined;
  const id = `chatcmpl-${randomId()}`;
  const created = Math.floor(Date.now() / 1000);
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

  if (!stream) {
    sink.json(200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text === '' && call ? null : text, ...(call ? { tool_calls: [call] } : {}) },
          finish_reason: finish,
        },
      ],
      usage,
    });
    return;
  }

  sink.startSse();
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
    sink.sse(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' }, null);
  const delay = reply.type === 'text' ? (reply.chunkDelayMs ?? 0) : 0;
  const size = reply.type === 'text' && reply.chunkSize ? reply.chunkSize : 12;
  for (let i = 0; i < text.length; i += size) {
    if (sink.closed()) return;
    chunk({ content: text.slice(i, i + size) }, null);
    if (delay > 0) await sink.sleep(delay);
  }
  if (call) {
    chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null);
    chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, null);
  }
  chunk({}, finish, { usage });
  sink.sse('data: [DONE]\n\n');
  sink.end();
}
