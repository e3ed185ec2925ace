import type { Pause, TaskRun } from '@shared/contract/tasks';

export const money = (usd: number): string => (usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);
export const tokens = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export const when = (ms: number): string => new Date(ms).toLocaleString([], { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export const STATE_TEXT: Record<TaskRun['state'], string> = {
  queued: 'queued',
  held: 'held',
  running: 'running',
  paused: 'paused by its limit',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

const LIMIT_TEXT: Record<Pause['limit'], string> = {
  runTokens: 'tokens per run',
  runMoney: 'money per run',
  runMinutes: 'minutes per run',
  dayTokens: 'tokens per day for this task',
  dayMoney: 'money per day for this task',
  allDayTokens: 'tokens per day for all agents',
  allDayMoney: 'money per day for all agents',
};

const isMoney = (l: Pause['limit']) => l === 'runMoney' || l === 'dayMoney' || l === 'allDayMoney';
export const amountOf = (l: Pause['limit'], n: number): string => (isMoney(l) ? money(n) : l === 'runMinutes' ? `${Math.round(n)} min` : `${tokens(n)} tokens`);

export const pauseInWords = (p: Pause): string => `Reached its limit of ${amountOf(p.limit, p.allowed)} (${LIMIT_TEXT[p.limit]}): ${amountOf(p.limit, p.spent)} spent.`;

/** What "Continue with +X" offers by default: half the limit again (at least 1 unit). */
export const defaultMore = (p: Pause): number => {
  const half = p.allowed / 2;
  return isMoney(p.limit) ? Math.max(0.01, Math.round(half * 100) / 100) : Math.max(1, Math.round(half));
};

export const runCost = (r: TaskRun): string => `${money(r.money)}${r.moneySource === 'prices' ? ' (from prices)' : r.moneySource === 'mixed' ? ' (partly from prices)' : ''} · ${tokens(r.tokens)} tokens`;

export const runTime = (r: TaskRun, now: number): string => (r.startedAt === null ? 'not started' : duration((r.endedAt ?? now) - r.startedAt));
