import { useEffect, useState } from 'react';
import type { AgentOnHost } from '@shared/contract/settings';
import type { Api } from '../../ipc/client';
import { useApi } from '../../app/api-context';
import { saveSetting, settingNow, useSetting } from '../../app/settings';
import { hostName, syncHosts, useHosts } from '../hosts';
import { formatEnv, parseArgs, parseEnv } from './agent-fields';
import { visibleText } from '../../ui/VisibleText';

/** One host's entry as the form edits it: blank fields are the agent's own. */
export interface HostCommandRow {
  hostId: string;
  command: string;
  args: string;
  env: string;
}

const toRows = (entries: Record<string, AgentOnHost> | undefined): HostCommandRow[] =>
  Object.entries(entries ?? {}).map(([hostId, e]) => ({ hostId, command: e.command ?? '', args: (e.args ?? []).join('\n'), env: formatEnv(e.env ?? {}) }));

/** The rows of an agent (none for a new one), kept while the form is open. */
export function useHostCommandRows(agentId: string | null): [HostCommandRow[], (rows: HostCommandRow[]) => void] {
  const stored = useSetting('agents.onHost');
  const [rows, setRows] = useState<HostCommandRow[]>(() => toRows(agentId ? stored[agentId] : undefined));
  return [rows, setRows];
}

/** What is wrong with the rows, in words (null: nothing). */
export function hostCommandsProblem(rows: readonly HostCommandRow[]): string | null {
  for (const row of rows) {
    const env = parseEnv(row.env);
    if (env.errors.length > 0) return `Environment on ${row.hostId.replace(/^ssh:/, '')}: ${env.errors.join('; ')}`;
  }
  return null;
}

/** Writes the agent's entries into the agents.onHost setting; resolves to an error message, or null. */
export async function saveHostCommands(api: Api, agentId: string, rows: readonly HostCommandRow[]): Promise<string | null> {
  const problem = hostCommandsProblem(rows);
  if (problem) return problem;
  const entries: Record<string, AgentOnHost> = {};
  for (const row of rows) {
    const env = parseEnv(row.env);
    const args = parseArgs(row.args);
    entries[row.hostId] = {
      ...(row.command.trim() ? { command: row.command.trim() } : {}),
      ...(args.length > 0 ? { args } : {}),
      ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
    };
  }
  const others = { ...settingNow('agents.onHost') };
  delete others[agentId];
  return saveSetting(api, 'agents.onHost', rows.length > 0 ? { ...others, [agentId]: entries } : others);
}

/** The agent's own command, arguments and environment on some SSH hosts (another path there, another key). */
export function HostCommands({ rows, onChange }: { rows: HostCommandRow[]; onChange(rows: HostCommandRow[]): void }) {
  const api = useApi();
  const hosts = useHosts((s) => s.hosts);
  useEffect(() => syncHosts(api), [api]);
  const free = hosts.filter((h) => h.kind === 'ssh' && !rows.some((r) => r.hostId === h.id));
  const edit = (i: number, patch: Partial<HostCommandRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="host-commands" data-testid="agent-host-commands">
      <legend>On SSH hosts</legend>
      <p className="muted small">Where the agent starts differently on a host (another path there): blank fields are the ones above.</p>
      {rows.length > 0 && (
        <p className="muted small" data-testid="agent-host-commands-restart">
          A change applies when the agent next starts on that host: an agent already running there keeps its command until you restart it (Restart, in its details).
        </p>
      )}
      {rows.map((row, i) => {
        const name = hostName(hosts, row.hostId);
        return (
          <div key={row.hostId} className="host-command" data-testid="agent-host-command" data-host={row.hostId}>
            <strong>{name}</strong>
            <label className="field">
              <span>Command on {name}</span>
              <input value={row.command} onChange={(e) => edit(i, { command: e.target.value })} spellCheck={false} placeholder="the agent's own" data-testid="agent-host-command-program" />
            </label>
            <label className="field">
              <span>Arguments on {name}, one per line</span>
              <textarea value={row.args} onChange={(e) => edit(i, { args: e.target.value })} rows={2} spellCheck={false} data-testid="agent-host-command-args" />
            </label>
            <label className="field">
              <span>Environment on {name}, NAME=value per line</span>
              <textarea value={row.env} onChange={(e) => edit(i, { env: e.target.value })} rows={2} spellCheck={false} data-testid="agent-host-command-env" />
            </label>
            <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove {name}
            </button>
          </div>
        );
      })}
      {free.length > 0 && (
        <label className="field">
          <span>Set how it starts on a host</span>
          <select
            value=""
            onChange={(e) => e.target.value && onChange([...rows, { hostId: e.target.value, command: '', args: '', env: '' }])}
            data-testid="agent-host-add"
          >
            <option value="">Choose a host…</option>
            {free.map((h) => (
              <option key={h.id} value={h.id}>
                {visibleText(h.label)}
              </option>
            ))}
          </select>
        </label>
      )}
    </fieldset>
  );
}
