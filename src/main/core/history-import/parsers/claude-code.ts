import { isObject, sessionRecordParser, str, unknownItem, type TranscriptItem } from './types';

/**
 * Claude Code's session files, `~/.claude/projects/<folder>/<session>.jsonl` (fixtures:
 * test/fixtures/agent-histories/claude-code-*): one record a line, `type` user | assistant | summary | system |
 * progress | queue-operation | file-history-snapshot…; a message's `content` is a string or Anthropic blocks
 * (text, thinking, tool_use, tool_result, image). Sub-agent records (`isSidechain`) are the sub-agent's own
 * conversation and are left out of the session's thread.
 */

/**
 * Record types that hold nothing for the transcript: every type Claude Code writes besides `user` and `assistant`
 * (its own list, in the 2.1.x binary: transcript records, then the session's bookkeeping, such as the system
 * prompt and tool list it sent, `api-request*`, costs, titles, modes). They are not shown, counted or searched; a
 * type not in this list is a newer record and is kept as text.
 */
const QUIET = new Set([
  'attachment', 'system', 'progress',
  'custom-title', 'ended-by-model', 'continued-in', 'ai-title', 'last-prompt', 'tag', 'relocated', 'agent-name', 'agent-color',
  'agent-setting', 'pr-link', 'frame-link', 'artifact-comment-monitor', 'artifact-autoreact-ledger', 'bridge-session',
  'history-suppression', 'file-history-snapshot', 'file-history-delta', 'attribution-snapshot', 'mode', 'permission-mode',
  'isolation-latch', 'session-owner', 'dev-mods', 'memory-mode', 'atis-latch', 'tools-used', 'worktree-state', 'cost-state',
  'queue-operation', 'content-replacement', 'api-request-shape', 'api-request-blob', 'api-request', 'fork-context-ref',
  'observer-ref', 'task-summary', 'speculation-accept', 'marble-origami-commit', 'marble-origami-snapshot',
]);

function toolOutput(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (isObject(b) && b.type === 'text' ? (str(b.text) ?? '') : isObject(b) && b.type === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
}

export const claudeCodeParser = sessionRecordParser('claude-code', ({ value, type, ts }) => {
  if (type === 'summary') return { items: [], meta: str(value.summary) ? { title: str(value.summary) } : {} };
  if (QUIET.has(type)) return { items: [] };
  if (type !== 'user' && type !== 'assistant') return { items: [unknownItem(type || 'untyped', value, ts)] };
  if (value.isSidechain === true || value.isMeta === true) return { items: [] };
  const message = isObject(value.message) ? value.message : {};
  const content = message.content;
  const items: TranscriptItem[] = [];
  if (typeof content === 'string') {
    items.push({ type: type === 'user' ? 'prompt' : 'agent', ts, text: content });
    return { items };
  }
  if (!Array.isArray(content)) return { items: [unknownItem(`${type} without content`, value, ts)] };
  const texts: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    switch (block.type) {
      case 'text':
        if (type === 'user') texts.push(str(block.text) ?? '');
        else items.push({ type: 'agent', ts, text: str(block.text) ?? '' });
        break;
      case 'thinking':
        items.push({ type: 'thought', ts, text: str(block.thinking) ?? '' });
        break;
      case 'redacted_thinking':
        break;
      case 'tool_use':
        items.push({ type: 'tool_call', ts, id: str(block.id) ?? `tool-${ts}`, name: str(block.name) ?? 'tool', input: block.input ?? {} });
        break;
      case 'tool_result':
        items.push({ type: 'tool_result', ts, id: str(block.tool_use_id) ?? '', output: toolOutput(block.content), failed: block.is_error === true });
        break;
      case 'image':
        if (type === 'user') texts.push('[image]');
        break;
      default:
        items.push(unknownItem(`content block ${String(block.type)}`, block, ts));
    }
  }
  if (texts.length) items.unshift({ type: 'prompt', ts, text: texts.join('\n\n') });
  return { items };
});
