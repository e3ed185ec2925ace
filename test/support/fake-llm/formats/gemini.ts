// Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`),
// as Gemini CLI speaks it through @google/genai.

import type { ConvMessage, ConvPart, JsonSchema, LlmReply, ToolSpec } from '../types.js';
import { asArray, asRecord, asString, flattenText, type ParsedBody, randomId, type ReplySink } from './common.js';

function responseOutput(response: unknown): { output: string; isError: boolean } {
  const r = asRecord(response);
  if (typeof r['output'] === 'string') return { output: r['output'], isError: false };
  if (r['error'] !== undefined) return { output: flattenText(r['error']), isError: true };
  return { output: JSON.stringify(response ?? null), isError: false };
}

function parts(rawParts: unknown): ConvPart[] {
  const out: ConvPart[] = [];
  for (const raw of asArray(rawParts)) {
    const p = asRecord(raw);
    if (p['thought'] === true) continue;
    if (typeof p['text'] === 'string') out.push({ type: 'text', text: p['text'] });
    const call = asRecord(p['functionCall']);
    if (typeof call['name'] === 'string') {
      out.push({ type: 'tool_call', id: asString(call['id']) || undefined, name: call['name'], args: call['args'] });
    }
    const resp = asRecord(p['functionResponse']);
    if (typeof resp['name'] === 'string') {
      const { output, isError } = responseOutput(resp['response']);
      out.push({ type: 'tool_result', id: asString(resp['id']) || undefined, name: resp['name'], output, isError });
    }
  }
  return out;
}

export function parseGemini(body: Record<string, unknown>, model: string, stream: boolean): ParsedBody {
  const tools: ToolSpec[] = [];
  for (const group of asArray(body['tools']).map(asRecord)) {
    for (const decl of asArray(group['functionDeclarations']).map(asRecord)) {
      if (typeof decl['name'] !== 'string') continue;
      tools.push({ name: decl['name'], schema: asRecord(decl['parametersJsonSchema'] ?? decl['parameters']) });
    }
  }
  const messages: ConvMessage[] = asArray(body['contents'])
    .map(asRecord)
    .map((c) => ({ role: c['role'] === 'model' ? 'assistant' : 'user', parts: parts(c['parts']) }));
  const sys = body['systemInstruction'];
  const system = typeof sys === 'string' ? sys : flattenText(asRecord(sys)['parts']);
  const config = asRecord(body['generationConfig']);
  const schema = config['responseJsonSchema'] ?? config['responseSchema'];
  return {
    model,
    stream,
    tools,
    messages,
    system,
    responseSchema: schema && typeof schema === 'object' ? (schema as JsonSchema) : undefined,
  };
}

const USAGE = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

function candidate(partsOut: unknown[], finish: boolean): Record<string, unknown> {
  return {
    content: { role: 'model', parts: partsOut },
    index: 0,
    ...(finish ? { finishReason: 'STOP' } : {}),
  };
}

export async function renderGemini(model: string, stream: boolean, reply: LlmReply, sink: ReplySink): Promise<void> {
  if (reply.type === 'error') {
    const status = reply.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL';
    sink.json(reply.status, { error: { code: reply.status, message: reply.message, status } });
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
      ? { functionCall: { id: `call_${randomId()}`, name: reply.name, args: reply.args } }
      : undefined;
  const envelope = (cand: Record<string, unknown>, last: boolean) => ({
    candidates: [cand],
    ...(last ? { usageMetadata: USAGE } : {}),
    modelVersion: model,
    responseId: randomId(),
  });

  if (!stream) {
    const out: unknown[] = [];
    if (text !== '') out.push({ text });
    if (call) out.push(call);
    sink.json(200, envelope(candidate(out, true), true));
    return;
  }

  sink.startSse();
  const frame = (obj: unknown) => sink.sse(`data: ${JSON.stringify(obj)}\r\n\r\n`);
  const delay = reply.type === 'text' ? (reply.chunkDelayMs ?? 0) : 0;
  const size = reply.type === 'text' && reply.chunkSize ? reply.chunkSize : 12;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  for (let i = 0; i < pieces.length; i++) {
    if (sink.closed()) return;
    // The last frame carries finishReason; Gemini CLI treats a stream without one as invalid and retries.
    const last = !call && i === pieces.length - 1;
    frame(envelope(candidate([{ text: pieces[i] }], last), last));
    if (delay > 0 && !last) await sink.sleep(delay);
  }
  if (call) frame(envelope(candidate([call], true), true));
  else if (pieces.length === 0) frame(envelope(candidate([{ text: '' }], true), true));
  sink.end();
}

export function geminiCountTokens(sink: ReplySink): void {
  sink.json(200, { totalTokens: 42 });
}
