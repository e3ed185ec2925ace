import { useCallback, useEffect, useState } from 'react';
import type { PriceTable, Usage } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { saveSetting, useSetting } from '../../app/settings';
import { VisibleText } from '../../ui/VisibleText';
import { agentName, syncAgents, useAgents } from '../agents';
import { money, tokens } from './format';
import { UsageChart } from './UsageChart';

/** Settings → Usage: today's spending per agent and per task, the last 14 days, daily limits for all agents, and the price table. */
export function UsageSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const [usage, setUsage] = useState<Usage | null>(null);
  const refresh = useCallback(() => {
    void api.call('tasks.usage', { days: 14 }).then((r) => r.ok && setUsage(r.value));
  }, [api]);
  useEffect(() => {
    syncAgents(api);
    refresh();
    const offs = [api.on('tasks.run', refresh), api.on('tasks.changed', refresh)];
    return () => offs.forEach((off) => off());
  }, [api, refresh]);
  return (
    <div className="usage-section" data-testid="usage-section">
      <h3>Today{usage ? ` (${usage.today})` : ''}</h3>
      {usage && usage.byAgent.length === 0 && <p className="muted small">Nothing spent today by guarded runs.</p>}
      {usage && usage.byAgent.length > 0 && (
        <table className="usage-table" data-testid="usage-by-agent">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Tokens</th>
              <th>Money</th>
            </tr>
          </thead>
          <tbody>
            {usage.byAgent.map((a) => (
              <tr key={a.agentId} data-testid="usage-agent-row">
                <td>
                  <VisibleText text={agentName(agents, a.agentId)} />
                </td>
                <td>{tokens(a.tokens)}</td>
                <td>{money(a.money)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {usage && usage.byTask.length > 0 && (
        <table className="usage-table" data-testid="usage-by-task">
          <thead>
            <tr>
              <th>Task</th>
              <th>Tokens</th>
              <th>Money</th>
            </tr>
          </thead>
          <tbody>
            {usage.byTask.map((t) => (
              <tr key={t.taskId} data-testid="usage-task-row">
                <td>
                  <VisibleText text={t.name} />
                </td>
                <td>{tokens(t.tokens)}</td>
                <td>{money(t.money)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>The last 14 days</h3>
      {usage && <UsageChart days={usage.days} />}
      <DailyLimits />
      <PriceTableEditor />
    </div>
  );
}

function DailyLimits() {
  const api = useApi();
  const limits = useSetting('tasks.dailyLimits');
  const [tok, setTok] = useState(limits.dayTokens?.toString() ?? '');
  const [usd, setUsd] = useState(limits.dayMoney?.toString() ?? '');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setTok(limits.dayTokens?.toString() ?? '');
    setUsd(limits.dayMoney?.toString() ?? '');
  }, [limits]);
  const save = async () => {
    const t = tok.trim() ? Math.round(Number(tok)) : undefined;
    const m = usd.trim() ? Number(usd) : undefined;
    if ((t !== undefined && !(t > 0)) || (m !== undefined && !(m > 0))) return setError('A limit is a number above 0, or empty for none.');
    setError(await saveSetting(api, 'tasks.dailyLimits', { ...(t !== undefined ? { dayTokens: t } : {}), ...(m !== undefined ? { dayMoney: m } : {}) }));
  };
  return (
    <fieldset className="usage-limits" data-testid="usage-daily-limits">
      <legend>Daily limits for all agents together (empty: none)</legend>
      <label>
        Tokens per day <input type="number" min="0" value={tok} onChange={(e) => setTok(e.target.value)} data-testid="usage-day-tokens" />
      </label>
      <label>
        USD per day <input type="number" min="0" step="any" value={usd} onChange={(e) => setUsd(e.target.value)} data-testid="usage-day-money" />
      </label>
      <button onClick={() => void save()} data-testid="usage-limits-save">
        Save limits
      </button>
      {error && <p className="error small">{error}</p>}
    </fieldset>
  );
}

const today = () => new Date().toISOString().slice(0, 10);

/** The price per model (USD per million tokens), for agents that report tokens and no cost; dated. */
function PriceTableEditor() {
  const api = useApi();
  const [table, setTable] = useState<PriceTable | null>(null);
  const [rows, setRows] = useState<Array<{ model: string; perMillion: string }>>([]);
  const [error, setError] = useState<string | null>(null);
  const custom = useSetting('tasks.prices');
  useEffect(() => {
    void api.call('tasks.prices', {}).then((r) => {
      if (!r.ok) return;
      setTable(r.value);
      setRows(r.value.prices.map((p) => ({ model: p.model, perMillion: String(p.perMillion) })));
    });
  }, [api, custom]);
  const save = async () => {
    const prices = rows.filter((r) => r.model.trim()).map((r) => ({ model: r.model.trim(), perMillion: Number(r.perMillion) }));
    if (prices.some((p) => !Number.isFinite(p.perMillion) || p.perMillion < 0)) return setError('A price is a number of USD per million tokens, 0 or more.');
    setError(await saveSetting(api, 'tasks.prices', { asOf: today(), prices }));
  };
  return (
    <fieldset className="usage-prices" data-testid="usage-prices">
      <legend>Prices per model, USD per million tokens{table ? ` (as of ${table.asOf}${custom ? ', edited' : ', the defaults'})` : ''}</legend>
      <p className="muted small">Used for agents that report tokens but no cost. A model id, a prefix ending in *, or * for any other model.</p>
      {rows.map((r, i) => (
        <div key={i} className="usage-price-row" data-testid="usage-price-row">
          <input value={r.model} onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, model: e.target.value } : x)))} aria-label="Model" />
          <input type="number" min="0" step="any" value={r.perMillion} onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, perMillion: e.target.value } : x)))} aria-label="USD per million tokens" />
          <button className="icon" aria-label="Remove" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      <button className="link-button small" onClick={() => setRows([...rows, { model: '', perMillion: '0' }])}>
        Add a model
      </button>{' '}
      <button onClick={() => void save()} data-testid="usage-prices-save">
        Save prices
      </button>{' '}
      {custom && (
        <button className="link-button small" onClick={() => void saveSetting(api, 'tasks.prices', null)}>
          Back to the defaults
        </button>
      )}
      {error && <p className="error small">{error}</p>}
    </fieldset>
  );
}
