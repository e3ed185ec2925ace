import { useState } from 'react';
import { create } from 'zustand';
import type { SpendLimits } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { FormActions } from '../../ui/FormActions';
import { Modal } from '../../ui/Modal';
import { useTasks } from './state';

/** The session whose spend limit is being set (null: the dialog is closed). */
const useEditing = create<{ sessionId: string | null }>(() => ({ sessionId: null }));

export function editSessionLimit(sessionId: string): void {
  useEditing.setState({ sessionId });
}

/** The guard's record of an interactive session that opted in, while it guards it. */
function useGuard(sessionId: string | null) {
  return useTasks((s) => Object.values(s.runs).find((r) => r.trigger === 'session' && r.sessionId === sessionId && (r.state === 'running' || r.state === 'paused')) ?? null);
}

/**
 * "Spend limit" of an interactive session: tokens and money for this session from now; reaching one pauses it
 * (its turn cancelled) and asks in the Inbox, as a task's run. Mounted once over the window.
 */
export function SessionLimitDialog() {
  const sessionId = useEditing((s) => s.sessionId);
  if (!sessionId) return null;
  return <LimitForm key={sessionId} sessionId={sessionId} onClose={() => useEditing.setState({ sessionId: null })} />;
}

function LimitForm({ sessionId, onClose }: { sessionId: string; onClose(): void }) {
  const api = useApi();
  const guard = useGuard(sessionId);
  const [tokens, setTokens] = useState('');
  const [money, setMoney] = useState('');
  const [error, setError] = useState<string | null>(null);
  const set = async (limits: SpendLimits | null) => {
    const r = await api.call('tasks.guardSession', { sessionId, limits });
    if (!r.ok) return setError(r.error.message);
    onClose();
  };
  const save = () => {
    const limits: SpendLimits = {};
    const t = tokens.trim() ? Number(tokens) : null;
    const m = money.trim() ? Number(money) : null;
    if (t !== null && (!Number.isFinite(t) || t < 1)) return setError('Tokens: a whole number above 0, or empty.');
    if (m !== null && (!Number.isFinite(m) || m <= 0)) return setError('USD: a number above 0, or empty.');
    if (t === null && m === null) return setError('Give a limit in tokens, in USD, or both.');
    if (t !== null) limits.runTokens = Math.round(t);
    if (m !== null) limits.runMoney = m;
    void set(limits);
  };
  return (
    <Modal label="Spend limit" onClose={onClose}>
      <form
        className="session-limit"
        data-testid="session-limit-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <h2>Spend limit</h2>
        <p className="small">What this session may spend from now on. When it reaches a limit its turn is cancelled and it waits in the Inbox: continue with more, or stop.</p>
        {guard && (
          <p className="small" data-testid="session-limit-current">
            Now: {guard.tokens.toLocaleString('en-US')} tokens, ${guard.money.toFixed(2)} spent{guard.state === 'paused' ? ' — paused at its limit' : ''}.
          </p>
        )}
        <label>
          Tokens <input type="number" min="1" step="1" value={tokens} onChange={(e) => setTokens(e.target.value)} data-testid="session-limit-tokens" />
        </label>
        <label>
          USD <input type="number" min="0" step="any" value={money} onChange={(e) => setMoney(e.target.value)} data-testid="session-limit-money" />
        </label>
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
        <FormActions>
          <button type="submit" className="primary" data-testid="session-limit-save">
            {guard ? 'Set a new limit' : 'Set the limit'}
          </button>
          {guard && (
            <button type="button" onClick={() => void set(null)} data-testid="session-limit-off">
              No limit
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </FormActions>
      </form>
    </Modal>
  );
}
