import { entryText, isFinished, type ThreadEntry } from '../../../shared/acp-thread';
import type { HistoryEntry, HistorySession } from '../../../shared/contract/history';
import { draftText, newSessionState, NO_CAPS, type Caps, type Draft, type SessionState, type StoredKind } from './entry-drafts';
import { SessionFold, type LoggedMessage } from './session-fold';
import { HistoryRows, newDraft, type HistoryBackend, type NewDraft } from './thread-rows';

/** The rows' backend in memory, without size limits: a session's full transcript from its log. */
class MemoryBackend implements HistoryBackend {
  readonly entries: Draft[] = [];
  private readonly states = new Map<string, SessionState>();
  private readonly refs = new Map<string, Draft>();
  private readonly files = new Map<string, boolean>();

  constructor(readonly caps: Caps) {}

  state(sessionId: string): SessionState {
    let st = this.states.get(sessionId);
    if (!st) this.states.set(sessionId, (st = newSessionState(sessionId)));
    return st;
  }

  entry(id: number): Draft | undefined {
    return this.entries[id - 1];
  }

  find(sessionId: string, kind: StoredKind, ref: string): Draft | undefined {
    return this.refs.get(`${sessionId}\0${kind}\0${ref}`);
  }

  create(init: NewDraft): Draft {
    const d = newDraft(init, this.entries.length + 1);
    this.entries.push(d);
    if (init.ref !== null) this.refs.set(`${init.sessionId}\0${init.kind}\0${init.ref}`, d);
    return d;
  }

  changed(): void {}

  markFailed(sessionId: string, fromSeq: number): void {
    for (const d of this.entries) if (d.sessionId === sessionId && d.seq >= fromSeq && d.kind !== 'title') d.failed = true;
  }

  addFile(sessionId: string, path: string, edited: boolean): { added: boolean; nowEdited: boolean } {
    const key = `${sessionId}\0${path}`;
    const had = this.files.get(key);
    this.files.set(key, edited || had === true);
    return { added: had === undefined, nowEdited: edited && had !== true };
  }
}

export interface Transcript {
  entries: HistoryEntry[];
  state: SessionState;
}

/**
 * A session's transcript: its log folded by the shared thread model (as a restored session is), its entries
 * as rows without size limits.
 */
export function buildTranscript(sessionId: string, messages: Iterable<LoggedMessage>, caps: Caps = NO_CAPS): Transcript {
  const backend = new MemoryBackend(caps);
  const folds = new Map<string, SessionFold>();
  const rows = new HistoryRows(backend, (id) => {
    let f = folds.get(id);
    if (!f) folds.set(id, (f = new SessionFold()));
    return f;
  });
  for (const m of messages) rows.apply(m);
  return {
    entries: backend.entries.filter((d) => d.kind !== 'title').map(toHistoryEntry),
    state: backend.state(sessionId),
  };
}

const MESSAGE_KINDS = { user: 'user_message', agent: 'agent_message', thought: 'thought' } as const;

/**
 * A row as the contract shows it: its thread entry with the row's id (a message row holds its text only: a
 * long message continues in the next row), or what the log holds beside the thread.
 */
export function toHistoryEntry(d: Draft): HistoryEntry {
  const base = {
    id: d.id,
    seq: d.seq,
    lastSeq: d.lastSeq,
    ts: d.ts,
    turn: d.turn,
    kind: d.kind === 'title' || d.kind === 'changes' ? 'agent' : d.kind,
    failed: d.failed,
  } as const;
  const id = `h${d.id}`;
  const detail = d.detail;
  if (!detail) {
    const text = draftText(d);
    const kind = d.kind === 'user' || d.kind === 'agent' || d.kind === 'thought' ? MESSAGE_KINDS[d.kind] : null;
    if (!kind) return { ...base, text };
    const parts = [{ type: 'text' as const, text }];
    return { ...base, text, entry: kind === 'user_message' ? { kind, id, promptId: null, messageId: null, parts } : { kind, id, messageId: null, parts } };
  }
  switch (detail.kind) {
    case 'entry':
      return { ...base, text: rowText(detail.entry), entry: restingEntry({ ...detail.entry, id }) };
    case 'write':
      return { ...base, text: detail.path, write: { path: detail.path, content: detail.content, truncated: detail.truncated } };
    case 'terminal':
      return { ...base, text: detail.terminal.output, terminal: detail.terminal };
    case 'stop':
      return { ...base, text: `Turn ended: ${detail.stopReason ?? 'unknown'}`, stop: { stopReason: detail.stopReason } };
    case 'title':
      return { ...base, text: detail.title };
    case 'changes':
      return { ...base, text: detail.paths.join('\n') };
  }
}

/** A prompt's text blocks, or any other entry's text in words. */
function rowText(e: ThreadEntry): string {
  if (e.kind === 'user_message') return e.parts.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n');
  return entryText(e).join('\n');
}

/** A stored entry as it rests: nothing in it waits for an answer any more. */
function restingEntry(e: ThreadEntry): ThreadEntry {
  if (e.kind !== 'tool_call') return e;
  // A tool call that never finished: the turn ended (or the app stopped) while it ran.
  return { ...e, permission: null, status: isFinished(e.status) ? e.status : 'cancelled' };
}

/** A fence longer than any run of backticks in the text. */
function fence(text: string, lang = ''): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text.endsWith('\n') ? text : `${text}\n`}${f}`;
}

/** Unified diff of two texts (line based, 3 lines of context); a plain replacement when they are huge. */
export function unifiedDiff(oldText: string | null, newText: string, path: string): string {
  const a = oldText === null || oldText === '' ? [] : oldText.split('\n');
  const b = newText === '' ? [] : newText.split('\n');
  const header = [`--- ${oldText === null ? '/dev/null' : `a/${path.replace(/^\//, '')}`}`, `+++ b/${path.replace(/^\//, '')}`];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const ops: Array<[' ' | '-' | '+', string]> = [];
  if (midA.length * midB.length > 4_000_000) {
    for (const l of midA) ops.push(['-', l]);
    for (const l of midB) ops.push(['+', l]);
  } else {
    // LCS table over the changed middle part.
    const n = midA.length;
    const m = midB.length;
    const t = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        t[i * (m + 1) + j] = midA[i] === midB[j] ? t[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(t[(i + 1) * (m + 1) + j]!, t[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push([' ', midA[i]!]);
        i++;
        j++;
      } else if (i < n && (j >= m || t[(i + 1) * (m + 1) + j]! >= t[i * (m + 1) + j + 1]!)) ops.push(['-', midA[i++]!]);
      else ops.push(['+', midB[j++]!]);
    }
  }
  const ctx = 3;
  const before = a.slice(Math.max(0, start - ctx), start).map((l): [' ', string] => [' ', l]);
  const after = a.slice(endA, endA + ctx).map((l): [' ', string] => [' ', l]);
  const all = [...before, ...ops, ...after];
  const oldStart = Math.max(0, start - ctx) + 1;
  const oldLen = all.filter(([o]) => o !== '+').length;
  const newLen = all.filter(([o]) => o !== '-').length;
  const hunk = `@@ -${oldLen ? oldStart : 0},${oldLen} +${newLen ? oldStart : 0},${newLen} @@`;
  return [...header, hunk, ...all.map(([o, l]) => `${o}${l}`)].join('\n');
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** A readable Markdown document of a session. */
export function renderMarkdown(session: HistorySession, entries: readonly HistoryEntry[], agentName: string): string {
  const out: string[] = [
    // One line: a line break in a title (kept elsewhere, shown as a token) would end the heading.
    `# ${session.title.replace(/\s+/g, ' ')}`,
    '',
    `- Agent: ${agentName}`,
    `- Project: \`${session.cwd}\``,
    `- Started: ${iso(session.createdAt)}`,
    `- Last activity: ${iso(session.lastActivityAt)}`,
    `- Session: ${session.id}`,
    '',
  ];
  let turn = -1;
  for (const e of entries) {
    if (e.turn !== turn && e.turn > 0) {
      turn = e.turn;
      out.push('---', '', `## Turn ${e.turn}${e.failed ? ' (failed)' : ''}`, '');
    }
    const entry = e.entry;
    if (e.write) out.push(`#### Wrote \`${e.write.path}\``, '', fence(e.write.content), '');
    else if (e.terminal) out.push(`#### Terminal ${e.terminal.terminalId}`, '', fence(e.terminal.output, 'text'), '');
    else if (e.stop) out.push(`> **Turn failed:** ${e.text}`, '');
    else if (entry) out.push(...entryMarkdown(entry, e.text));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** One thread entry of an export. */
function entryMarkdown(entry: ThreadEntry, text: string): string[] {
  switch (entry.kind) {
    case 'user_message': {
      const out = ['### User', ''];
      for (const p of entry.parts) {
        const b = p.type === 'block' ? p.block : null;
        if (p.type === 'text') out.push(p.text, '');
        else if (b?.type === 'resource_link') out.push(`Attached: [${b.name}](${b.uri})`, '');
        else if (b?.type === 'resource') {
          const r = b.resource as { uri: string; text?: string };
          out.push(`Attached: \`${r.uri}\``, '', ...(r.text ? [fence(r.text), ''] : []));
        } else if (b?.type === 'image') out.push(`Attached image (${b.mimeType})`, '');
      }
      return out;
    }
    case 'agent_message':
      return ['### Agent', '', text, ''];
    case 'thought':
      return ['<details><summary>Thinking</summary>', '', text, '', '</details>', ''];
    case 'tool_call': {
      const out = [`#### Tool: ${entry.title || entry.toolCallId} (${entry.toolKind}, ${entry.status})`, ''];
      const paths = entry.locations.map((l) => l.path).filter((p) => typeof p === 'string' && p);
      if (paths.length) out.push(`Files: ${paths.map((p) => `\`${p}\``).join(', ')}`, '');
      if (entry.toolKind === 'execute' && entry.rawInput !== undefined) out.push(fence(JSON.stringify(entry.rawInput), 'json'), '');
      const said = entry.content.flatMap((c) => (c.type === 'content' && c.content?.type === 'text' && typeof c.content.text === 'string' ? [c.content.text] : []));
      if (said.length) out.push(said.join('\n'), '');
      const diffs = entry.content.some((c) => c.type === 'diff') ? entry.content : (entry.replacedDiffs ?? []);
      for (const d of diffs) {
        if (d.type === 'diff' && typeof d.newText === 'string') out.push(fence(unifiedDiff(typeof d.oldText === 'string' ? d.oldText : null, d.newText, String(d.path ?? '')), 'diff'), '');
      }
      const terminals = [...Object.values(entry.storedTerminals ?? {}), ...Object.values(entry.metaTerminals ?? {})];
      for (const term of terminals) {
        if (typeof term?.output !== 'string' || !term.output) continue;
        const exit = term.exit?.exitCode != null ? ` (exit ${term.exit.exitCode})` : term.exit?.signal ? ` (${term.exit.signal})` : '';
        out.push(`Output${exit}:`, '', fence(term.output, 'text'), '');
      }
      if (entry.rawOutput !== undefined && entry.rawOutput !== null && terminals.every((x) => !x?.output)) {
        out.push('Result:', '', fence(typeof entry.rawOutput === 'string' ? entry.rawOutput : JSON.stringify(entry.rawOutput, null, 2), 'text'), '');
      }
      return out;
    }
    case 'plan':
      return ['#### Plan', '', ...entry.entries.map((p) => `- [${p.status === 'completed' ? 'x' : ' '}] ${p.content}`), ''];
    case 'turn_error':
      return [`> **Turn failed:** ${entry.message}`, ''];
    case 'subagent':
      return [`#### Subagent: ${entry.title ?? entry.childId}${entry.description ? ` (${entry.description})` : ''}`, ''];
    case 'session_message':
      return ['### Message between sessions', '', text, ''];
    default:
      // Every other kind (notices, compactions, questions, and kinds added later) as the text it shows.
      return text ? [`> ${text.replace(/\n/g, '\n> ')}`, ''] : [];
  }
}

/** A file name for an export: date and title, without characters file systems refuse. */
export function exportFileName(session: HistorySession, ext: string): string {
  const date = new Date(session.createdAt).toISOString().slice(0, 10);
  const title = (session.title || 'session')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f<>:"/\\|?*]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80)
    .replace(/[. ]+$/, '');
  return `${date} ${title || 'session'}.${ext}`;
}
