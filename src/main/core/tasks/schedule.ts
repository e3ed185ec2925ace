import { Cron } from 'croner';
import type { Schedule } from '../../../shared/contract/tasks';

const HOUR = 3_600_000;
/** A schedule looked at over a long closed spell lists at most this many missed runs (the newest). */
export const MAX_MISSED = 50;

/** The cron expression of a calendar schedule (daily, weekdays, cron); null for "every N hours". */
function cronOf(s: Schedule): string | null {
  switch (s.kind) {
    case 'daily':
    case 'weekdays': {
      const [h, m] = s.at.split(':').map(Number);
      return `${m} ${h} * * ${s.kind === 'weekdays' ? '1-5' : '*'}`;
    }
    case 'cron':
      return s.expression.trim();
    case 'hours':
      return null;
  }
}

function cron(expression: string, timeZone: string): Cron {
  // Five fields only: a seconds field would let a task run every second.
  if (expression.split(/\s+/).length !== 5) throw new Error(`a cron expression has five fields (minute hour day month weekday): ${expression}`);
  return new Cron(expression, { timezone: timeZone, paused: true, domAndDow: false });
}

/** The schedule's problem in words, or null when it is valid. */
export function scheduleProblem(s: Schedule, timeZone: string): string | null {
  const expression = cronOf(s);
  if (expression === null) return null;
  try {
    cron(expression, timeZone);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The next `count` run times strictly after `after` (ms), in the user's time zone. */
export function nextRuns(s: Schedule, after: number, count: number, timeZone: string): number[] {
  if (s.kind === 'hours') {
    const step = s.every * HOUR;
    const first = after < s.from ? s.from : s.from + (Math.floor((after - s.from) / step) + 1) * step;
    return Array.from({ length: count }, (_, i) => first + i * step);
  }
  return cron(cronOf(s)!, timeZone)
    .nextRuns(count, new Date(after))
    .map((d) => d.getTime());
}

/** The run times in (from, to], oldest first; at most MAX_MISSED (the newest of them). */
export function runsBetween(s: Schedule, from: number, to: number, timeZone: string): number[] {
  const out: number[] = [];
  let at = from;
  for (let guard = 0; guard < 100_000; guard++) {
    const [next] = nextRuns(s, at, 1, timeZone);
    if (next === undefined || next > to) break;
    out.push(next);
    if (out.length > MAX_MISSED) out.shift();
    at = next;
  }
  return out;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The schedule in words ("every weekday at 07:30"). */
export function describeSchedule(s: Schedule): string {
  switch (s.kind) {
    case 'daily':
      return `every day at ${s.at}`;
    case 'weekdays':
      return `every weekday (Monday to Friday) at ${s.at}`;
    case 'hours':
      return s.every === 1 ? 'every hour' : `every ${s.every} hours`;
    case 'cron':
      return describeCron(s.expression.trim());
  }
}

/** Common cron shapes in words; anything else as "on the cron schedule …". */
function describeCron(e: string): string {
  const f = e.split(/\s+/);
  if (f.length !== 5) return `on the cron schedule ${e}`;
  const [min, hour, dom, mon, dow] = f as [string, string, string, string, string];
  const time = /^\d+$/.test(min) && /^\d+$/.test(hour) ? `${hour.padStart(2, '0')}:${min.padStart(2, '0')}` : null;
  if (time && dom === '*' && mon === '*') {
    if (dow === '*') return `every day at ${time}`;
    if (dow === '1-5') return `every weekday (Monday to Friday) at ${time}`;
    if (/^[0-7](,[0-7])*$/.test(dow)) return `every ${dow.split(',').map((d) => DAYS[Number(d) % 7]).join(', ')} at ${time}`;
  }
  if (/^\d+$/.test(min) && dom === '*' && mon === '*' && dow === '*') {
    if (hour === '*') return `every hour at minute ${min}`;
    const step = /^\*\/(\d+)$/.exec(hour);
    if (step) return `every ${step[1]} hours at minute ${min}`;
  }
  const everyMin = /^\*\/(\d+)$/.exec(min);
  if (everyMin && hour === '*' && dom === '*' && mon === '*' && dow === '*') return `every ${everyMin[1]} minutes`;
  return `on the cron schedule ${e}`;
}

/** A run time in words in the user's zone ("Mon 9 Mar, 07:30"). */
export function whenInWords(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hour12: false }).format(at);
}

/** The local day of a time ("2026-03-09"), in the user's zone. */
export function dayOf(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}
