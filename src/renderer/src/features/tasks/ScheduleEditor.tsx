import { useEffect, useState } from 'react';
import type { Schedule } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { useLatestRead } from '../../ipc/latest';
import { when } from './format';

type Kind = 'none' | Schedule['kind'];

/** The schedule of a task: none, daily or weekdays at a time, every N hours, or a cron expression; said in words with its next three runs. */
export function ScheduleEditor({ value, onChange, onProblem }: { value: Schedule | null; onChange(s: Schedule | null): void; onProblem(problem: string | null): void }) {
  const api = useApi();
  const kind: Kind = value?.kind ?? 'none';
  const [preview, setPreview] = useState<{ text: string; nextRuns: number[] } | { error: string } | null>(null);
  const begin = useLatestRead();
  useEffect(() => {
    if (!value) {
      setPreview(null);
      onProblem(null);
      return;
    }
    const current = begin();
    const t = setTimeout(() => {
      void api.call('tasks.previewSchedule', { schedule: value }).then((r) => {
        if (!current()) return;
        setPreview(r.ok ? r.value : { error: r.error.message });
        onProblem(r.ok ? null : r.error.message);
      });
    }, 200);
    return () => clearTimeout(t);
  }, [api, begin, JSON.stringify(value)]);
  const setKind = (k: Kind) => {
    if (k === 'none') onChange(null);
    else if (k === 'daily' || k === 'weekdays') onChange({ kind: k, at: value && 'at' in value ? value.at : '07:00' });
    else if (k === 'hours') onChange({ kind: 'hours', every: 6, from: Date.now() });
    else onChange({ kind: 'cron', expression: '0 7 * * 1-5' });
  };
  return (
    <fieldset className="task-schedule" data-testid="task-schedule">
      <legend>Schedule</legend>
      <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} aria-label="When it runs by itself" data-testid="task-schedule-kind">
        <option value="none">No schedule (run it by hand or queue it)</option>
        <option value="daily">Every day at…</option>
        <option value="weekdays">Weekdays at…</option>
        <option value="hours">Every N hours</option>
        <option value="cron">A cron expression</option>
      </select>
      {value && (value.kind === 'daily' || value.kind === 'weekdays') && (
        <input type="time" value={value.at} onChange={(e) => onChange({ ...value, at: e.target.value })} aria-label="At" data-testid="task-schedule-at" />
      )}
      {value?.kind === 'hours' && (
        <label>
          every{' '}
          <input type="number" min={1} max={168} value={value.every} onChange={(e) => onChange({ ...value, every: Math.max(1, Math.round(Number(e.target.value) || 1)) })} aria-label="Hours" data-testid="task-schedule-every" />{' '}
          hours
        </label>
      )}
      {value?.kind === 'cron' && (
        <input value={value.expression} onChange={(e) => onChange({ ...value, expression: e.target.value })} aria-label="Cron expression" placeholder="minute hour day month weekday" data-testid="task-schedule-cron" />
      )}
      {preview && 'error' in preview && (
        <p className="error small" data-testid="task-schedule-error">
          {preview.error}
        </p>
      )}
      {preview && 'text' in preview && (
        <div className="small" data-testid="task-schedule-preview">
          <span data-testid="task-schedule-text">{preview.text}</span>
          <span className="muted">. Next: </span>
          {preview.nextRuns.map((t, i) => (
            <span key={t} data-testid="task-schedule-next">
              {i > 0 ? ', ' : ''}
              {when(t)}
            </span>
          ))}
          <div className="muted">Runs while Switchboard is open; runs missed while it was closed are listed at the next start.</div>
        </div>
      )}
    </fieldset>
  );
}
