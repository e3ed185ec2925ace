import { useState } from 'react';
import type { TaskRun } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { act } from './state';
import { amountOf, defaultMore, pauseInWords } from './format';

/** A run the spend guard paused: what it spent against which limit, and Continue with +X or Stop. */
export function PauseCard({ run }: { run: TaskRun }) {
  const api = useApi();
  const pause = run.pause!;
  const [more, setMore] = useState(() => String(defaultMore(pause)));
  const [busy, setBusy] = useState(false);
  const amount = Number(more);
  const valid = Number.isFinite(amount) && amount > 0;
  const go = async (what: 'continue' | 'stop') => {
    setBusy(true);
    if (what === 'continue') await act('Could not continue the run', api.call('tasks.continue', { runId: run.id, more: amount }));
    else await act('Could not stop the run', api.call('tasks.stop', { runId: run.id }));
    setBusy(false);
  };
  return (
    <div className="task-pause" role="alert" data-testid="task-pause" data-limit={pause.limit}>
      <strong>Paused by its limit.</strong> <span data-testid="task-pause-words">{pauseInWords(pause)}</span>{' '}
      <span className="muted small">The turn was cancelled; nothing is lost, and the session can go on.</span>
      <div className="task-pause-actions">
        <label>
          Continue with +
          <input type="number" min="0" step="any" value={more} onChange={(e) => setMore(e.target.value)} aria-label="How much more it may spend" data-testid="task-pause-more" />
        </label>
        <button className="primary" disabled={busy || !valid} onClick={() => void go('continue')} data-testid="task-pause-continue">
          Continue with +{valid ? amountOf(pause.limit, amount) : '…'}
        </button>
        <button disabled={busy} onClick={() => void go('stop')} data-testid="task-pause-stop">
          Stop
        </button>
      </div>
    </div>
  );
}
