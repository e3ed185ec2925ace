import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import { isRecord } from './messages';
import type { PlanThreadEntry } from './types';

/**
 * Plans by id (ACP's unstable `plan_update` / `plan_removed`, clientCapabilities.plan advertised): a session may
 * have several plans, each edited in place wherever it is in the thread (items, markdown or a file link), and
 * withdrawn by the agent (kept in the thread, shown as removed). Unlike the id-less `plan` update, a plan_update
 * after a user message still edits the same plan.
 */

/** Plans per session beyond this are ignored (an agent inventing ids cannot grow the index without bound). */
export const MAX_PLANS = 64;
const MAX_ITEMS = 500;
const MAX_MARKDOWN = 200_000;
const MAX_ID = 200;

const planIdOf = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID ? v : null);

export function applyPlanUpdate(d: Draft, u: Record<string, unknown>): void {
  const plan = u.plan;
  if (!isRecord(plan)) return;
  const planId = planIdOf(plan.planId);
  if (planId === null) return;
  let body: Pick<PlanThreadEntry, 'entries' | 'markdown' | 'uri'>;
  if (plan.type === 'items' && Array.isArray(plan.entries)) {
    body = { entries: plan.entries.filter((e): e is PlanEntry => isRecord(e) && typeof e.content === 'string').slice(0, MAX_ITEMS), markdown: undefined, uri: undefined };
  } else if (plan.type === 'markdown' && typeof plan.content === 'string') {
    body = { entries: [], markdown: plan.content.slice(0, MAX_MARKDOWN), uri: undefined };
  } else if (plan.type === 'file' && typeof plan.uri === 'string') {
    body = { entries: [], markdown: undefined, uri: plan.uri.slice(0, 4096) };
  } else return;
  const ids = d.state.planIds ?? {};
  const known = Object.prototype.hasOwnProperty.call(ids, planId) ? ids[planId] : undefined;
  if (known !== undefined) {
    if (!d.holds(known)) return d.missed(known);
    const entry = d.mutable<PlanThreadEntry>(known);
    entry.entries = body.entries;
    setBody(entry, body);
    delete entry.removed;
    return;
  }
  if (Object.keys(ids).length >= MAX_PLANS) return;
  const entry: PlanThreadEntry = { kind: 'plan', id: d.nextEntryId(), planId, entries: body.entries };
  setBody(entry, body);
  const index = d.push(entry);
  d.state.planIds = { ...ids, [planId]: index };
}

function setBody(entry: PlanThreadEntry, body: Pick<PlanThreadEntry, 'markdown' | 'uri'>): void {
  if (body.markdown !== undefined) entry.markdown = body.markdown;
  else delete entry.markdown;
  if (body.uri !== undefined) entry.uri = body.uri;
  else delete entry.uri;
}

export function applyPlanRemoved(d: Draft, u: Record<string, unknown>): void {
  const planId = planIdOf(u.planId);
  const ids = d.state.planIds;
  if (planId === null || !ids || !Object.prototype.hasOwnProperty.call(ids, planId)) return;
  const index = ids[planId]!;
  if (!d.holds(index)) return d.missed(index);
  d.mutable<PlanThreadEntry>(index).removed = true;
}
