import type { GlobalLimits, Pause, SpendLimits } from '../../../shared/contract/tasks';

/** A usage_update as the agent sent it (untrusted: checked before it counts). */
export interface UsageReport {
  used: number;
  cost: { amount: number; currency: string } | null;
}

/** Reads the usage fields of an ACP usage_update; null when they are not numbers an agent could mean. */
export function usageReportOf(update: Record<string, unknown>): UsageReport | null {
  const used = update.used;
  if (typeof used !== 'number' || !Number.isFinite(used) || used < 0 || used > 1e12) return null;
  const c = update.cost as { amount?: unknown; currency?: unknown } | null | undefined;
  const cost =
    c && typeof c === 'object' && typeof c.amount === 'number' && Number.isFinite(c.amount) && c.amount >= 0 && c.amount < 1e9
      ? { amount: c.amount, currency: typeof c.currency === 'string' ? c.currency.slice(0, 10) : 'USD' }
      : null;
  return { used, cost };
}

/** What one report added: tokens, money, and whether the money is the agent's own figure. */
export interface Spend {
  tokens: number;
  money: number;
  fromAgent: boolean;
}

/**
 * Turns a session's usage_update stream into spending. `used` is the context the agent holds: what it grew by is
 * what the model read and wrote since (a drop is a compaction, not a refund). `cost` is the session's cumulative
 * cost: what it grew by is spent; without one, the tokens are priced by the table.
 */
export class UsageMeter {
  private readonly last = new Map<string, { used: number; cost: number | null }>();

  /** Starts counting a session from what it already holds (a new session: nothing). */
  watch(sessionId: string, baseline: { used: number; cost: number | null } = { used: 0, cost: null }): void {
    this.last.set(sessionId, { ...baseline });
  }
  forget(sessionId: string): void {
    this.last.delete(sessionId);
  }
  watching(sessionId: string): boolean {
    return this.last.has(sessionId);
  }

  add(sessionId: string, report: UsageReport, perMillion: number): Spend | null {
    const last = this.last.get(sessionId);
    if (!last) return null;
    const tokens = Math.max(0, Math.round(report.used - last.used));
    last.used = report.used;
    if (report.cost) {
      const money = last.cost === null ? report.cost.amount : Math.max(0, report.cost.amount - last.cost);
      last.cost = report.cost.amount;
      return { tokens, money, fromAgent: true };
    }
    return { tokens, money: (tokens * perMillion) / 1_000_000, fromAgent: false };
  }
}

export interface SpentSoFar {
  /** The run's spending, and minutes since it started. */
  run: { tokens: number; money: number; minutes: number };
  /** Today's, of the run's task (null: not a task) and of all guarded runs. */
  taskDay: { tokens: number; money: number } | null;
  allDay: { tokens: number; money: number };
}

type Allowance = Partial<Record<Pause['limit'], number>>;

/** The first limit crossed (spent beyond what it allows, with what Continue added), or null. */
export function crossedLimit(limits: SpendLimits, global: GlobalLimits, spent: SpentSoFar, allowance: Allowance, now: number): Pause | null {
  const checks: Array<[Pause['limit'], number | undefined, number]> = [
    ['runMoney', limits.runMoney, spent.run.money],
    ['runTokens', limits.runTokens, spent.run.tokens],
    ['runMinutes', limits.runMinutes, spent.run.minutes],
    ['dayMoney', spent.taskDay ? limits.dayMoney : undefined, spent.taskDay?.money ?? 0],
    ['dayTokens', spent.taskDay ? limits.dayTokens : undefined, spent.taskDay?.tokens ?? 0],
    ['allDayMoney', global.dayMoney, spent.allDay.money],
    ['allDayTokens', global.dayTokens, spent.allDay.tokens],
  ];
  for (const [limit, base, value] of checks) {
    if (base === undefined) continue;
    const allowed = base + (allowance[limit] ?? 0);
    // Reaching a limit is crossing it: the run that spent all it may spend stops there.
    if (value >= allowed) return { limit, allowed, spent: value, at: now };
  }
  return null;
}

/** A limit in words, for the notice ("$0.50 per run"). */
export function limitInWords(p: Pause): string {
  const amount = (v: number) => (p.limit.endsWith('Money') ? `$${v.toFixed(2)}` : p.limit === 'runMinutes' ? `${Math.round(v)} min` : `${Math.round(v).toLocaleString('en-US')} tokens`);
  const scope = p.limit.startsWith('run') ? 'this run' : p.limit.startsWith('day') ? "this task's day" : "all agents' day";
  return `${amount(p.spent)} spent of ${amount(p.allowed)} allowed for ${scope}`;
}
