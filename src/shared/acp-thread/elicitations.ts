import type { ElicitationAction, ElicitationContent, ElicitationRequestView } from '../elicitation';
import type { Draft } from './draft';
import type { ElicitationEntry } from './types';

/** Elicitations in the thread: asked (a new entry where the conversation is), answered, completed (URL mode). */

export function applyElicitation(d: Draft, requestId: string, request: ElicitationRequestView): void {
  d.push({ kind: 'elicitation', id: d.nextEntryId(), requestId, request, state: 'pending', content: null, completed: false });
}

/** The entry among those held; when the state does not hold the thread's start, that part is reported missed (refetched). */
function findIndex(d: Draft, match: (e: ElicitationEntry) => boolean): number {
  for (let i = d.length - 1; i >= d.first; i--) {
    const e = d.at(i);
    if (e?.kind === 'elicitation' && match(e)) return i;
  }
  d.missed(0, d.first);
  return -1;
}

export function applyElicitationResolved(d: Draft, requestId: string, action: ElicitationAction, content: ElicitationContent | null): void {
  const i = findIndex(d, (e) => e.requestId === requestId && e.state === 'pending');
  if (i < 0) return;
  const e = d.mutable<ElicitationEntry>(i);
  e.state = action;
  e.content = action === 'accept' ? content : null;
}

/** Unknown and already completed ids change nothing (as the protocol asks). */
export function applyElicitationComplete(d: Draft, elicitationId: string): void {
  const i = findIndex(d, (e) => e.request.mode === 'url' && e.request.elicitationId === elicitationId && !e.completed);
  if (i < 0) return;
  d.mutable<ElicitationEntry>(i).completed = true;
}

/** An elicitation in words, line by line (transcript exports and search): the question, then the answer. */
export function elicitationLines(e: ElicitationEntry): string[] {
  const { request } = e;
  const lines = [request.message];
  if (request.mode === 'url') lines.push(request.url);
  if (e.state === 'pending') return lines;
  if (e.state === 'decline') return [...lines, 'Declined.'];
  if (e.state === 'cancel') return [...lines, 'Dismissed.'];
  if (request.mode === 'url') return [...lines, e.completed ? 'Opened; done.' : 'Opened.'];
  for (const [name, value] of Object.entries(e.content ?? {})) {
    const f = request.form.fields.find((x) => x.name === name);
    const title = (v: string) => (f && (f.type === 'enum' || f.type === 'multi') ? (f.options.find((o) => o.value === v)?.title ?? v) : v);
    const shown = Array.isArray(value) ? value.map(title).join(', ') : typeof value === 'boolean' ? (value ? 'yes' : 'no') : typeof value === 'string' ? title(value) : String(value);
    lines.push(`${f?.title || name}: ${shown}`);
  }
  return lines;
}
