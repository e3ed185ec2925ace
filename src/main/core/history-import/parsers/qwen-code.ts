import { isObject, sessionRecordParser, str, unknownItem, type TranscriptItem } from './types';

/**
 * Qwen Code's chats, `~/.qwen/projects/<folder>/chats/<session>.jsonl` (fixtures:
 * test/fixtures/agent-histories/qwen-*): one record a line, `type` user | assistant | tool_result | system, the
 * message in Gemini's shape (`parts`: text, thought, functionCall, functionResponse).
 */

function responseText(response: unknown): { output: string; failed: boolean } {
  if (!isObject(response)) return { output: typeof response === 'string' ? response : '', failed: false };
  if (typeof response.error === 'string') return { output: response.error, failed: true };
  const out = response.output ?? response.content ?? response.llmContent;
  return { output: typeof out === 'string' ? out : out === undefined ? '' : JSON.stringify(out), failed: false };
}

/** Gemini-shaped parts as transcript items (Qwen and Gemini CLI share them). */
export function partsToItems(parts: unknown, role: 'user' | 'model', ts: number): TranscriptItem[] {
  if (!Array.isArray(parts)) return [];
  const items: TranscriptItem[] = [];
  const texts: string[] = [];
  for (const p of parts) {
    if (!isObject(p)) continue;
    if (isObject(p.functionCall)) {
      const fc = p.functionCall;
      items.push({ type: 'tool_call', ts, id: str(fc.id) ?? `${str(fc.name) ?? 'tool'}-${ts}`, name: str(fc.name) ?? 'tool', input: fc.args ?? {} });
    } else if (isObject(p.functionResponse)) {
      const fr = p.functionResponse;
      items.push({ type: 'tool_result', ts, id: str(fr.id) ?? `${str(fr.name) ?? 'tool'}-${ts}`, ...responseText(fr.response) });
    } else if (typeof p.text === 'string') {
      if (p.thought === true) items.push({ type: 'thought', ts, text: p.text });
      else if (role === 'user') texts.push(p.text);
      else items.push({ type: 'agent', ts, text: p.text });
    }
  }
  if (texts.length) items.unshift({ type: 'prompt', ts, text: texts.join('\n\n') });
  return items;
}

export const qwenCodeParser = sessionRecordParser('qwen-code', ({ value, type, ts }) => {
  if (type === 'system') return { items: [] };
  const message = isObject(value.message) ? value.message : null;
  if (!message || (type !== 'user' && type !== 'assistant' && type !== 'tool_result')) return { items: [unknownItem(type || 'untyped', value, ts)] };
  return { items: partsToItems(message.parts, type === 'assistant' ? 'model' : 'user', ts) };
});
