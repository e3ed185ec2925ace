import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import { isRecord } from './messages';
import type { PlanThreadEntry } from './types';

/**
 * Each plan update carries the complete plan and replaces the previous one. Within a turn the plan entry
 * is updated in place; a new turn's first plan starts a new entry (as does a plan after a user message).
 */
export function applyPlan(d: Draft, rawEntries: unknown): void {
  if (!Array.isArray(rawEntries)) return;
  const entries = rawEntries.filter((e): e is PlanEntry => isRecord(e) && typeof e.content === 'string');
  d.state.plan = entries;
  const known = d.state.planIndex;
  if (known !== undefined) {
    if (known === null) d.state.planIndex = d.push({ kind: 'plan', id: d.nextEntryId(), entries });
    else if (d.holds(known)) d.mutable<PlanThreadEntry>(known).entries = entries;
    else d.missed(known);
    return;
  }
  // A state made without planIndex: look back for this turn's plan.
  for (let i = d.length - 1; i >= d.state.turn.startIndex && i >= d.first; i--) {
    const entry = d.at(i);
    if (entry?.kind === 'plan') {
      d.mutable<PlanThreadEntry>(i).entries = entries;
      d.state.planIndex = i;
      return;
    }
    if (entry?.kind === 'user_message') break;
  }
  d.state.planIndex = d.push({ kind: 'plan', id: d.nextEntryId(), entries });
}
