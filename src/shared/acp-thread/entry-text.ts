import { elicitationLines } from './elicitations';
import { toolCallText } from './tool-calls';
import type { ThreadEntry } from './types';

/**
 * An entry's text in words, line by line: what history searches and exports show of it. Every kind gets
 * its string fields, in order, skipping identifiers (`id`, `…Id`) and enum-like fields; a kind that reads
 * better otherwise says so in ENTRY_TEXT, beside its fold. A new entry kind needs nothing here.
 */
export function entryText(entry: ThreadEntry): string[] {
  const own = (ENTRY_TEXT as Record<string, ((e: ThreadEntry) => string[]) | undefined>)[entry.kind];
  return own ? own(entry) : stringsOf(entry);
}

type TextOf = { [K in ThreadEntry['kind']]?: (e: Extract<ThreadEntry, { kind: K }>) => string[] };

/** Kinds whose text is not just their string fields. */
const ENTRY_TEXT: TextOf = {
  elicitation: elicitationLines,
  tool_call: toolCallText,
  subagent: (e) => [e.title, e.description].filter((s): s is string => s !== null),
};

/** The files an entry names: every `path` field, and `uri` fields of file URIs (as given). */
export function entryPaths(entry: ThreadEntry): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key: string | null): void => {
    if (typeof v === 'string') {
      if (v && (key === 'path' || (key === 'uri' && v.startsWith('file:')))) out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, null);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(entry, null);
  return [...new Set(out)];
}

/** Fields that name or classify rather than say anything anyone would search for. */
const NOT_TEXT: ReadonlySet<string> = new Set(['id', 'kind', 'type', 'severity', 'status', 'priority', 'mimeType', 'toolKind']);
const isIdKey = (key: string): boolean => NOT_TEXT.has(key) || /[a-z]Id$/.test(key);

function stringsOf(entry: ThreadEntry): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key: string | null): void => {
    if (typeof v === 'string') {
      if (v && (key === null || !isIdKey(key))) out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, null);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(entry, null);
  return out;
}
