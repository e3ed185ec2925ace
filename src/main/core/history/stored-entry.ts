import type { StoredTerminal, ThreadEntry } from '../../../shared/acp-thread';
import { clean, head, tail, type Caps } from './entry-drafts';
import type { ClientTerminal } from './session-fold';

/** Names, identifiers and states (kind, type, id, toolCallId, status…): kept up to this length, outside the budget. */
const MAX_NAME = 512;
const NAMES: ReadonlySet<string> = new Set(['kind', 'type', 'id', 'status', 'state']);
const isName = (key: string | null): boolean => key !== null && (NAMES.has(key) || /[a-z]Id$/.test(key));

/** Binary content (base64 image, audio, resource blobs): not kept in the index (exports read the log). */
const BINARY: ReadonlySet<string> = new Set(['data', 'blob']);

/**
 * A thread entry as history stores it: the shared model's entry within the size limits, the same for every
 * kind. Each string is cut to `caps.text` (an `output`, to its end) and all of them together to
 * `caps.entry` (names and identifiers are kept); binary content is left out. A tool call also keeps the last output of the client terminals
 * it shows (`storedTerminals`, as a restored session has them).
 */
export function storedEntry(entry: ThreadEntry, terminals: readonly ClientTerminal[], caps: Caps): ThreadEntry {
  let source: ThreadEntry = entry;
  if (entry.kind === 'tool_call' && terminals.length > 0) {
    const stored: Record<string, StoredTerminal> = { ...entry.storedTerminals };
    for (const t of terminals) {
      if (entry.metaTerminals && Object.prototype.hasOwnProperty.call(entry.metaTerminals, t.terminalId)) continue;
      Object.defineProperty(stored, t.terminalId, {
        value: { output: t.output, truncated: t.truncated, exit: t.exitCode === null && t.signal === null ? null : { exitCode: t.exitCode, signal: t.signal } },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    source = { ...entry, storedTerminals: stored };
  }
  let budget = caps.entry;
  const cut = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') {
      if (isName(key)) return clean(head(v, MAX_NAME));
      const max = Math.min(caps.text, budget);
      const s = v.length <= max ? v : key === 'output' ? tail(v, max) : head(v, max);
      budget -= s.length;
      return clean(s);
    }
    if (Array.isArray(v)) return v.map((x) => cut(x, null));
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (BINARY.has(k) && typeof x === 'string') continue;
        // An own key whatever its name (an agent's `__proto__` too).
        if (k === '__proto__') Object.defineProperty(out, k, { value: cut(x, k), enumerable: true, writable: true, configurable: true });
        else out[k] = cut(x, k);
      }
      return out;
    }
    return v;
  };
  return cut(source, null) as ThreadEntry;
}
