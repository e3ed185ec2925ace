// Anthropic Messages API (`POST /v1/messages`, streamed SSE or plain JSON), as Claude Code speaks it.

import type { ConvMessage, ConvPart, LlmReply, ToolSpec } from '../types.js';
import { asArray, asRecord, asString, flattenText, type ParsedBody, randomId, type ReplySink } from './common.js';

function contentParts(content: unknown): ConvPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: ConvPart[] = [];
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    switch (block['type']) {
      case 'text':
        parts.push({ type: 'text', text: asString(block['text']) });
        break;
      case 'tool_use':
        parts.push({ type: 'tool_call', id: asString(block['id']), name: asString(block['name']), args: block['input'] });
        break;
      case 'tool_result':
        parts.push({
          type: 'tool_result',
          id: asString(block['tool_use_id']),
          output: flattenText(block['content']),
          isError: block['is_error'] === true,
        });
        break;
      default:
        break; // images, thinking, documents…: irrelevant to the script
    }
  }
  return parts;
}

export function parseAnthropic(body: Record<string, unknown>): ParsedBody {
  const tools: ToolSpec[] = asArray(body['tools'])
    .map(asRecord)
    .filter((t) => typeof t['name'] === 'string')
    .map((t) => ({ name: t['name'] as string, schema: asRecord(t['input_schema']) }));
  const messages: ConvMessage[] = asArray(body['messages'])
    .map(asRecord)
    .map((m) => ({ role: m['role'] === 'assistant' ? 'assistant' : 'user', parts: contentParts(m['content']) }));
  return {
    model: asString(body['model']),
    stream: body['stream'] === true,
    tools,
    messages,
    system: flattenText(body['system']),
  };
}

function usage(outputTokens: number) {
  return {
    input_tokens: 10,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function chunksOf(text: string, size: number): string[] {
  if (text === '') return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function renderAnthropic(model: string, stream: boolean, reply: LlmReply, sink: ReplySink): Promise<void> {
  if (reply.type === 'error') {
    sink.json(reply.status, { type: 'error', error: { type: 'api_error', message: reply.message } });
    return;
  }
  const text =
    reply.type === 'text'
      ? reply.text
      : reply.type === 'json'
        ? JSON.stringify(reply.value)
        : (reply.text ?? '');
  const toolUse =
    reply.type === 'tool_call' ? { id: `toolu_${randomId()}`, name: reply.name, input: reply.args } : undefined;
  const id = `msg_${randomId()}`;
  const stopReason = toolUse ? 'tool_use' : 'end_turn';

  if (!stream) {
    const content: unknown[] = [];
    if (text !== '' || !toolUse) content.push({ type: 'text', text });
    if (toolUse) content.push({ type: 'tool_use', ...toolUse });
    sink.json(200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usage(5),
    });
    return;
  }

  sink.startSse();
  const ev = (event: string, data: Record<string, unknown>) => sink.sse(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  ev('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(1),
    },
  });
  let index = 0;
  if (text !== '' || !toolUse) {
    ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    ev('ping', { type: 'ping' });
    const delay = reply.type === 'text' ? (reply.chunkDelayMs ?? 0) : 0;
    const size = reply.type === 'text' && reply.chunkSize ? reply.chunkSize : 12;
    for (const piece of chunksOf(text, size)) {
      if (sink.closed()) return;
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      if (delay > 0) await sink.sleep(delay);
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  if (toolUse) {
    ev('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} },
    });
    const json = JSON.stringify(toolUse.input);
    const half = Math.floor(json.length / 2);
    for (const partial of [json.slice(0, half), json.slice(half)]) {
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
  }
  ev('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  ev('message_stop', { type: 'message_stop' });
  sink.end();
}

export function anthropicCountTokens(sink: ReplySink): void {
  sink.json(200, { input_tokens: 42 });
}
