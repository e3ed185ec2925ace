import { describe, expect, it } from 'vitest';
import { describeSchedule, nextRuns, runsBetween, scheduleProblem } from '../../../src/main/core/tasks/schedule';

/** Schedules in the user's zone: the next run times of each kind, across daylight-saving changes. */
const iso = (ms: number[]) => ms.map((m) => new Date(m).toISOString());

describe('schedules', () => {
  it('daily at a time: the next three days at that local time', () => {
    const after = Date.parse('2026-05-04T10:00:00Z'); // 12:00 in Berlin
    expect(iso(nextRuns({ kind: 'daily', at: '07:30' }, after, 3, 'Europe/Berlin'))).toEqual([
      '2026-05-05T05:30:00.000Z',
      '2026-05-06T05:30:00.000Z',
      '2026-05-07T05:30:00.000Z',
    ]);
    expect(describeSchedule({ kind: 'daily', at: '07:30' })).toBe('every day at 07:30');
  });

  it('weekdays: Friday is followed by Monday', () => {
    const friday = Date.parse('2026-05-08T12:00:00Z');
    expect(iso(nextRuns({ kind: 'weekdays', at: '09:00' }, friday, 3, 'UTC'))).toEqual([
      '2026-05-11T09:00:00.000Z',
      '2026-05-12T09:00:00.000Z',
      '2026-05-13T09:00:00.000Z',
    ]);
    expect(describeSchedule({ kind: 'weekdays', at: '09:00' })).toBe('every weekday (Monday to Friday) at 09:00');
  });

  it('every N hours: N real hours apart from its start, across a clock change too', () => {
    const from = Date.parse('2026-03-28T22:00:00Z');
    const runs = nextRuns({ kind: 'hours', every: 6, from }, Date.parse('2026-03-28T23:00:00Z'), 3, 'Europe/Berlin');
    expect(iso(runs)).toEqual(['2026-03-29T04:00:00.000Z', '2026-03-29T10:00:00.000Z', '2026-03-29T16:00:00.000Z']);
    expect(describeSchedule({ kind: 'hours', every: 6, from })).toBe('every 6 hours');
  });

  it('a cron expression, five fields only, in words where it has a common shape', () => {
    const after = Date.parse('2026-05-04T10:00:00Z'); // a Monday
    expect(iso(nextRuns({ kind: 'cron', expression: '15 18 * * 1,3' }, after, 3, 'UTC'))).toEqual([
      '2026-05-04T18:15:00.000Z',
      '2026-05-06T18:15:00.000Z',
      '2026-05-11T18:15:00.000Z',
    ]);
    expect(describeSchedule({ kind: 'cron', expression: '15 18 * * 1,3' })).toBe('every Monday, Wednesday at 18:15');
    expect(describeSchedule({ kind: 'cron', expression: '*/20 * * * *' })).toBe('every 20 minutes');
    expect(describeSchedule({ kind: 'cron', expression: '0 9 1 * *' })).toBe('on the cron schedule 0 9 1 * *');
    expect(scheduleProblem({ kind: 'cron', expression: '* * * * * *' }, 'UTC')).toMatch(/five fields/);
    expect(scheduleProblem({ kind: 'cron', expression: '61 * * * *' }, 'UTC')).not.toBeNull();
  });

  it('daylight saving: a daily run keeps its local time, runs once on the day the hour is skipped and once when it repeats', () => {
    const daily = { kind: 'daily', at: '09:00' } as const;
    // New York moves from -5 to -4 on 8 March 2026: 09:00 local is 14:00Z before, 13:00Z after.
    expect(iso(nextRuns(daily, Date.parse('2026-03-07T00:00:00Z'), 3, 'America/New_York'))).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
    // 02:30 does not exist in Berlin on 29 March: the run happens once that day, not zero or twice.
    const skipped = runsBetween({ kind: 'daily', at: '02:30' }, Date.parse('2026-03-28T00:00:00Z'), Date.parse('2026-03-30T23:00:00Z'), 'Europe/Berlin');
    expect(skipped.map((m) => new Date(m).toISOString().slice(0, 10))).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    // 02:30 happens twice in Berlin on 25 October: one run.
    const repeated = runsBetween({ kind: 'daily', at: '02:30' }, Date.parse('2026-10-24T12:00:00Z'), Date.parse('2026-10-26T12:00:00Z'), 'Europe/Berlin');
    expect(iso(repeated)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('a long closed spell lists at most 50 missed runs, the newest', () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    const runs = runsBetween({ kind: 'hours', every: 1, from }, from, from + 200 * 3_600_000, 'UTC');
    expect(runs).toHaveLength(50);
    expect(runs.at(-1)).toBe(from + 200 * 3_600_000);
  });
});
