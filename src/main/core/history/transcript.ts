import { entryText } from '../../../shared/acp-thread';
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

/** An entry as the contract shows it. */
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
  const detail = d.detail;
  if (!detail) return { ...base, text: draftText(d) };
  switch (detail.kind) {
    case 'prompt':
      return { ...base, text: detail.blocks.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n'), prompt: detail.blocks };
    case 'tool':
      return { ...base, text: detail.tool.title, tool: detail.tool };
    case 'plan':
      return { ...base, text: detail.entries.map((e) => e.content).join('\n'), plan: detail.entries };
    case 'write':
      return { ...base, text: detail.path, write: { path: detail.path, content: detail.content, truncated: detail.truncated } };
    case 'terminal':
      return { ...base, text: detail.terminal.output, terminal: detail.terminal };
    case 'stop':
      return {
        ...base,
        text: detail.error ? detail.error.message : `Turn ended: ${detail.stopReason ?? 'unknown'}`,
        stop: { stopReason: detail.stopReason, error: detail.error },
      };
    case 'title':
      return { ...base, text: detail.title };
    case 'changes':
      return { ...base, text: detail.paths.join('\n') };
    case 'entry':
      return { ...base, text: entryText(detail.entry).join('\n'), entry: detail.entry };
  }
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
export function renderMarkdown(session: HistorySession, entries: readonly HistoryEntry[]): string {
  const out: string[] = [
    `# ${session.title || 'Untitled session'}`,
    '',
    `- Agent: ${session.agentId}`,
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
    switch (e.kind) {
      case 'prompt': {
        out.push('### User', '');
        for (const b of e.prompt ?? []) {
          if (b.type === 'text') out.push(b.text, '');
          else if (b.type === 'resource_link') out.push(`Attached: [${b.name}](${b.uri})`, '');
          else if (b.type === 'resource') out.push(`Attached: \`${b.uri}\``, '', ...(b.text ? [fence(b.text), ''] : []));
          else if (b.type === 'image') out.push(`Attached image (${b.mimeType})`, '');
        }
        break;
      }
      case 'user':
        out.push('### User', '', e.text, '');
        break;
      case 'agent':
        out.push('### Agent', '', e.text, '');
        break;
      case 'thought':
        out.push('<details><summary>Thinking</summary>', '', e.text, '', '</details>', '');
        break;
      case 'tool': {
        const t = e.tool!;
        out.push(`#### Tool: ${t.title || t.toolCallId} (${t.kind}, ${t.status})`, '');
        if (t.paths.length) out.push(`Files: ${t.paths.map((p) => `\`${p}\``).join(', ')}`, '');
        if (t.rawInput && t.kind === 'execute') out.push(fence(t.rawInput, 'json'), '');
        if (t.text) out.push(t.text, '');
        for (const d of t.diffs) out.push(fence(unifiedDiff(d.oldText, d.newText, d.path), 'diff'), '');
        for (const term of t.terminals) {
          if (!term.output) continue;
          const exit = term.exitCode !== null ? ` (exit ${term.exitCode})` : term.signal ? ` (${term.signal})` : '';
          out.push(`Output${exit}:`, '', fence(term.output, 'text'), '');
        }
        if (t.rawOutput && t.terminals.every((x) => !x.output)) out.push('Result:', '', fence(t.rawOutput, 'text'), '');
        break;
      }
      case 'write':
        out.push(`#### Wrote \`${e.write!.path}\``, '', fence(e.write!.content), '');
        break;
      case 'terminal':
        out.push(`#### Terminal ${e.terminal!.terminalId}`, '', fence(e.terminal!.output, 'text'), '');
        break;
      case 'plan':
        out.push('#### Plan', '', ...(e.plan ?? []).map((p) => `- [${p.status === 'completed' ? 'x' : ' '}] ${p.content}`), '');
        break;
      case 'stop':
        out.push(`> **Turn failed:** ${e.text}`, '');
        break;
      case 'entry':
        if (e.text) out.push(`> ${e.text.replace(/\n/g, '\n> ')}`, '');
        break;
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
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
