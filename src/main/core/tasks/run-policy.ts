import { isAbsolute, relative, resolve } from 'node:path';
import type { RunPolicy } from '../../../shared/contract/tasks';

/** A permission request as the agent sent it (untrusted). */
export interface AskedPermission {
  toolCall: { kind?: string | null; title?: string | null; locations?: Array<{ path?: unknown }> | null };
  options: Array<{ optionId: string; kind: string }>;
}

const READ_KINDS = new Set(['read', 'search']);

const inside = (root: string, path: unknown): boolean => {
  if (typeof path !== 'string' || !isAbsolute(path)) return false;
  const rel = relative(resolve(root), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * What a run's policy answers a permission request while nobody watches: an option id ("once" options only,
 * never an "always" that would store a rule), or null to leave it waiting for the user. `reads` allows reads and
 * searches, `edits` also edits, each only where every location it names is inside the run's folder; what a policy does not allow it
 * refuses (an agent's "reject once"), and 'ask' answers nothing.
 */
export function policyAnswer(policy: RunPolicy, asked: AskedPermission, folder: string): { optionId: string; allowed: boolean } | null {
  if (policy === 'ask') return null;
  const allowOnce = asked.options.find((o) => o.kind === 'allow_once');
  const rejectOnce = asked.options.find((o) => o.kind === 'reject_once');
  const kind = asked.toolCall.kind ?? 'other';
  const locations = asked.toolCall.locations ?? [];
  // Every place the tool names must be in the run's folder; an edit must name one.
  const confined = locations.every((l) => inside(folder, l.path));
  const allowed = policy !== 'refuse' && confined && (READ_KINDS.has(kind) || (policy === 'edits' && kind === 'edit' && locations.length > 0));
  if (allowed && allowOnce) return { optionId: allowOnce.optionId, allowed: true };
  if (rejectOnce) return { optionId: rejectOnce.optionId, allowed: false };
  return null;
}
