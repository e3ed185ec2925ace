import type { HistoryEntry, HistorySession } from '@shared/contract/history';
import type { ReopenPlan } from '@shared/contract/sessions';
import type { Api } from '../../ipc/client';
import { useNotices } from '../../app/notices';
import { useTabs } from '../../state/tabs';
import { openLiveSessionTab, peekController } from '../session';
import { basename, formatDateTime } from './format';

/**
 * Continuing a past session. When its agent can, the session itself comes back live (sessions.reopen:
 * session/resume, else session/load; sessions.reopenPlan says which before the user clicks). Otherwise a
 * new session is started with the same agent in the same folder, and its first prompt is a summary of the
 * old transcript, which the user can edit before it is sent.
 */

/** How the session would come back (starts its agent to learn its capabilities). */
export async function reopenPlan(api: Api, sessionId: string): Promise<ReopenPlan> {
  const r = await api.call('sessions.reopenPlan', { sessionId });
  return r.ok ? r.value : { mode: null, reason: `Cannot tell whether it can be reopened: ${r.error.message}`, agentName: 'the agent' };
}

export const REOPEN_TEXT: Record<'resume' | 'load', string> = {
  resume: 'resumed (session/resume): the conversation shown is the stored one',
  load: 'loaded (session/load): the agent replayed it, shown once',
};

/** Reopens the stored session itself: the id of the live session, or an error. */
export async function restoreSession(api: Api, sessionId: string): Promise<{ sessionId: string } | { error: string }> {
  const r = await api.call('sessions.reopen', { sessionId });
  if (!r.ok) return { error: r.error.message };
  // A tab of the session may be open already (closed earlier, or restored with the layout): attach it again.
  void peekController(r.value.id)?.load();
  return { sessionId: r.value.id };
}

/** Reopens a stored session as a live tab, telling the user which way it came back; false when it could not. */
export async function reopenAsTab(api: Api, sessionId: string, title: string): Promise<boolean> {
  const plan = await reopenPlan(api, sessionId);
  if (plan.mode === 'live') {
    openLiveSessionTab(sessionId, title);
    return true;
  }
  if (plan.mode === null) {
    useNotices.getState().push('error', `Cannot reopen “${title}”: ${plan.reason}`);
    return false;
  }
  const r = await restoreSession(api, sessionId);
  if ('error' in r) {
    useNotices.getState().push('error', `Could not reopen “${title}”: ${r.error}. You can continue it in a new session from its transcript.`);
    return false;
  }
  openLiveSessionTab(r.sessionId, title);
  useNotices.getState().push('info', `“${title}” is live again: ${plan.agentName} ${REOPEN_TEXT[plan.mode]}.`);
  return true;
}

/**
 * A session reopened from its transcript tab comes back live in that tab (resume and load alike), unless
 * another tab shows the live session already.
 */
export function landInLiveTab(transcriptTabId: string, sessionId: string, title: string): string {
  const tabs = useTabs.getState();
  const other = Object.values(tabs.tabs).some((t) => t.kind === 'session' && t.props.sessionId === sessionId);
  if (other || !tabs.tabs[transcriptTabId]) return openLiveSessionTab(sessionId, title);
  tabs.update(transcriptTabId, { kind: 'session', title, props: { sessionId } });
  tabs.activate(transcriptTabId);
  return transcriptTabId;
}

/** Every entry of a session (pages of 500), at most `max`. */
export async function loadAllEntries(api: Api, sessionId: string, max = 20_000): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  for (let offset = 0; offset < max; ) {
    const r = await api.call('history.entries', { sessionId, offset, limit: 500 });
    if (!r.ok) throw new Error(r.error.message);
    out.push(...r.value.entries);
    offset += r.value.entries.length;
    if (r.value.entries.length === 0 || offset >= r.value.total) break;
  }
  return out;
}

const SUMMARY_MAX = 12_000;

function shorten(text: string, max: number): string {
  const t = text.replace(/\n{3,}/g, '\n\n').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

function relative(path: string, cwd: string): string {
  const base = cwd.replace(/[\\/]+$/, '');
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}

interface TurnSummary {
  lines: string[];
}

/**
 * A plain-text summary of a transcript to start a new session with: each turn's request, the agent's last
 * answer, the tools it used, then the files touched. Long sessions keep the first turn and the latest ones.
 */
export function summarize(session: Pick<HistorySession, 'title' | 'cwd' | 'lastActivityAt'>, agentName: string, entries: readonly HistoryEntry[]): string {
  const turns = new Map<number, { prompt: string[]; answer: string; tools: string[]; failed: string | null }>();
  const files = new Set<string>();
  for (const e of entries) {
    let t = turns.get(e.turn);
    if (!t) turns.set(e.turn, (t = { prompt: [], answer: '', tools: [], failed: null }));
    const entry = e.entry;
    if (e.write) files.add(relative(e.write.path, session.cwd));
    else if (e.stop) t.failed = e.stop.stopReason ?? 'failed';
    else if (entry?.kind === 'turn_error') t.failed = entry.message || 'failed';
    else if (entry?.kind === 'agent_message') t.answer = e.text;
    else if (entry?.kind === 'user_message' && e.kind === 'prompt') {
      const attached = entry.parts.flatMap((p) => (p.type !== 'block' ? [] : p.block.type === 'resource_link' ? [p.block.uri] : p.block.type === 'resource' ? [p.block.resource.uri] : []));
      t.prompt.push(e.text || attached.map((uri) => `@${basename(uri)}`).join(' '));
      for (const uri of attached) t.prompt.push(`(attached ${uri})`);
    } else if (entry?.kind === 'tool_call') {
      t.tools.push(`${entry.title || entry.toolKind}${entry.status === 'failed' ? ' (failed)' : ''}`);
      for (const l of entry.locations) files.add(relative(l.path, session.cwd));
      for (const c of entry.content) if (c.type === 'diff' && typeof c.path === 'string') files.add(relative(c.path, session.cwd));
    }
  }
  const blocks: TurnSummary[] = [];
  for (const [n, t] of [...turns].sort((a, b) => a[0] - b[0])) {
    const lines: string[] = [];
    if (n > 0) lines.push(`Turn ${n}`);
    const prompt = t.prompt.join('\n').trim();
    if (prompt) lines.push(`Me: ${shorten(prompt, 1200)}`);
    if (t.tools.length) lines.push(`Tools: ${shorten(t.tools.slice(0, 12).join('; ') + (t.tools.length > 12 ? `; and ${t.tools.length - 12} more` : ''), 800)}`);
    if (t.answer.trim()) lines.push(`You: ${shorten(t.answer, 1500)}`);
    if (t.failed) lines.push(`(This turn failed: ${shorten(t.failed, 300)})`);
    if (lines.length > (n > 0 ? 1 : 0)) blocks.push({ lines });
  }
  const head = `I am continuing an earlier session${session.title ? ` (“${session.title}”)` : ''} that I had with ${agentName} in ${session.cwd}, last active ${formatDateTime(
    session.lastActivityAt,
  )}. Here is what happened there, oldest first:`;
  const fileList = [...files].slice(0, 60);
  const tail = [
    ...(fileList.length ? [`Files touched: ${fileList.join(', ')}${files.size > fileList.length ? `, and ${files.size - fileList.length} more` : ''}`] : []),
    'Please pick up from where that session ended: check the current state of these files before changing anything.',
  ].join('\n\n');
  // Keep the first turn and as many of the latest turns as fit.
  const texts = blocks.map((b) => b.lines.join('\n'));
  const first = texts.slice(0, 1);
  let budget = SUMMARY_MAX - head.length - tail.length - (first[0]?.length ?? 0) - 40;
  const latest: string[] = [];
  for (let i = texts.length - 1; i >= 1; i--) {
    const t = texts[i]!;
    if (t.length + 2 > budget && latest.length > 0) break;
    latest.unshift(t);
    budget -= t.length + 2;
  }
  const skipped = Math.max(0, texts.length - first.length - latest.length);
  const text = [head, ...first, ...(skipped ? [`(${skipped} turn${skipped === 1 ? '' : 's'} left out)`] : []), ...latest, tail].join('\n\n');
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}
