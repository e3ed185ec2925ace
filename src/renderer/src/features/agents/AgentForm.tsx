import { useEffect, useState } from 'react';
import type { AgentSummary } from '@shared/contract/agents';
import { useApi } from '../../app/api-context';
import { splitCommandLine } from './command-line';
import { upsertAgent } from './state';
import { ErrorAlert } from '../../ui/Alert';
import { FormActions } from '../../ui/FormActions';
import { formatEnv, parseArgs, parseEnv } from './agent-fields';
import { AgentUrlForm } from './AgentUrlForm';
import { HostCommands, hostCommandsProblem, saveHostCommands, useHostCommandRows } from './HostCommands';

type Props = { mode: 'add'; onDone(agent: AgentSummary | null): void } | { mode: 'edit'; agent: AgentSummary; onDone(agent: AgentSummary | null): void };

/**
 * Add a custom agent, by command (any program speaking ACP on stdio) or by URL (an agent served over the
 * network), or edit one.
 */
export function AgentForm(props: Props) {
  const [by, setBy] = useState<'command' | 'url'>('command');
  if (props.mode === 'edit') return props.agent.url ? <AgentUrlForm agent={props.agent} onDone={props.onDone} /> : <CommandAgentForm {...props} />;
  return (
    <div className="agent-add">
      <h2>Add a custom agent</h2>
      <div className="agent-add-by" role="radiogroup" aria-label="How Switchboard reaches the agent">
        {(
          [
            ['command', 'By command'],
            ['url', 'By URL'],
          ] as const
        ).map(([value, label]) => (
          <button key={value} type="button" role="radio" aria-checked={by === value} className={by === value ? 'on' : ''} onClick={() => setBy(value)} data-testid={`agent-add-by-${value}`}>
            {label}
          </button>
        ))}
      </div>
      {by === 'url' ? <AgentUrlForm agent={null} onDone={props.onDone} /> : <CommandAgentForm {...props} />}
    </div>
  );
}

/** Add a custom agent (any command speaking ACP on stdio), or edit an agent's command, overrides and compatibility flags. */
function CommandAgentForm(props: Props) {
  const api = useApi();
  const agent = props.mode === 'edit' ? props.agent : null;
  const custom = !agent || agent.source === 'custom';
  const [name, setName] = useState(agent?.name ?? '');
  const [command, setCommand] = useState(agent?.command ?? '');
  const [cwd, setCwd] = useState(agent?.cwd ?? '');
  const [overrideArgs, setOverrideArgs] = useState(agent ? agent.overrides.args !== null : false);
  const [args, setArgs] = useState(() => (agent ? (custom ? agent.args : (agent.overrides.args ?? agent.args)).join('\n') : ''));
  const [env, setEnv] = useState(() => (agent ? formatEnv(custom ? agent.env : agent.overrides.env) : ''));
  const [missingFileAsEmpty, setMissingFileAsEmpty] = useState(agent?.compat.missingFileAsEmpty ?? false);
  const [hostRows, setHostRows] = useHostCommandRows(agent?.id ?? null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const registryId = agent?.source === 'registry' ? agent.registryId : null;
  // A whole command line in the Command field (pasted `bash /path/agent.sh`, quotes, escapes) is split into
  // the program and its arguments, shown below the field before saving. An unchanged stored command stays.
  const typed = command.trim();
  const split = custom && typed !== (agent?.command ?? '') && /[\s'"\\]/.test(typed) ? splitCommandLine(typed) : null;
  const program = split?.ok ? (split.words[0] ?? '') : typed;
  const extraArgs = split?.ok ? split.words.slice(1) : [];

  // A registry agent's args/env overrides live with the registry (they survive updates and rollbacks).
  useEffect(() => {
    if (!registryId) return;
    let stale = false;
    void api.call('registry.list', {}).then((r) => {
      if (stale || !r.ok) return;
      const installed = r.value.installed.find((i) => i.registryId === registryId);
      if (!installed) return;
      setOverrideArgs(installed.overrides.args !== null);
      setArgs((installed.overrides.args ?? []).join('\n'));
      setEnv(formatEnv(installed.overrides.env));
    });
    return () => {
      stale = true;
    };
  }, [api, registryId]);

  const submit = async () => {
    const parsedEnv = parseEnv(env);
    if (parsedEnv.errors.length > 0) return setError(`Environment: ${parsedEnv.errors.join('; ')}`);
    const hostsProblem = hostCommandsProblem(hostRows);
    if (hostsProblem) return setError(hostsProblem);
    if (custom && (!name.trim() || !command.trim())) return setError('A name and a command are needed.');
    if (split && !split.ok) return setError(`Command: ${split.error}`);
    if (custom && !program) return setError('A name and a command are needed.');
    const dir = cwd.trim();
    if (custom && dir && !(dir.startsWith('/') || /^[A-Za-z]:[\\/]/.test(dir))) return setError('The working folder must be a full path.');
    setBusy(true);
    setError(null);
    let r;
    if (!agent) {
      r = await api.call('agents.addCustom', { name: name.trim(), command: program, args: [...extraArgs, ...parseArgs(args)], env: parsedEnv.env, cwd: dir || null });
      if (r.ok && missingFileAsEmpty) r = await api.call('agents.update', { agentId: r.value.id, compat: { missingFileAsEmpty } });
    } else if (custom) {
      r = await api.call('agents.update', {
        agentId: agent.id,
        name: name.trim(),
        command: program,
        args: [...extraArgs, ...parseArgs(args)],
        env: parsedEnv.env,
        cwd: dir || null,
        compat: { missingFileAsEmpty },
      });
    } else if (registryId) {
      const o = await api.call('registry.setOverrides', { registryId, args: overrideArgs ? parseArgs(args) : null, env: parsedEnv.env });
      r = o.ok ? await api.call('agents.update', { agentId: agent.id, compat: { missingFileAsEmpty } }) : o;
    } else {
      r = await api.call('agents.update', { agentId: agent.id, args: overrideArgs ? parseArgs(args) : null, env: parsedEnv.env, compat: { missingFileAsEmpty } });
    }
    const hostsError = r.ok ? await saveHostCommands(api, r.value.id, hostRows) : null;
    setBusy(false);
    if (hostsError) return setError(hostsError);
    if (!r.ok) return setError(r.error.message);
    upsertAgent(r.value);
    props.onDone(r.value);
  };

  return (
    <form
      className="agent-form"
      data-testid="agent-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {agent && <h2>{`Edit ${agent.name}`}</h2>}
      {!agent && <p className="muted small">Any program that speaks the Agent Client Protocol on its standard input and output.</p>}
      {custom ? (
        <>
          <label className="field">
            <span>Name</span>
            <input value={name} onChange={(e) => setName(e.target.value)} autoFocus data-testid="agent-name" />
          </label>
          <label className="field">
            <span>Command</span>
            <input
              value={command}
              onChange={(e) => setCommand(e.target.value)}
              spellCheck={false}
              placeholder="/usr/local/bin/my-agent, npx, or a whole command line"
              data-testid="agent-command"
            />
          </label>
          {split && (
            <div className={`command-split small${split.ok ? '' : ' error'}`} data-testid="agent-command-split" aria-live="polite">
              {split.ok ? (
                <>
                  Runs the program <code data-testid="agent-command-program">{program}</code>
                  {extraArgs.length > 0 && (
                    <>
                      {' '}
                      with the arguments{' '}
                      {extraArgs.map((a, i) => (
                        <code key={i} className="command-arg" data-testid="agent-command-arg">
                          {a}
                        </code>
                      ))}
                    </>
                  )}
                  {parseArgs(args).length > 0 ? ', then the arguments below.' : '.'}
                </>
              ) : (
                <>Cannot split this command line: {split.error}</>
              )}
            </div>
          )}
          <label className="field">
            <span>Arguments, one per line</span>
            <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} spellCheck={false} placeholder="--acp" data-testid="agent-args" />
          </label>
        </>
      ) : (
        <>
          <p className="muted small">
            Command: <code>{[agent!.command, ...agent!.args].join(' ')}</code>
          </p>
          <label className="checkbox">
            <input type="checkbox" checked={overrideArgs} onChange={(e) => setOverrideArgs(e.target.checked)} /> Replace the installed arguments
          </label>
          {overrideArgs && (
            <label className="field">
              <span>Arguments, one per line</span>
              <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} spellCheck={false} />
            </label>
          )}
        </>
      )}
      <label className="field">
        <span>{custom ? 'Environment' : 'Extra environment'}, NAME=value per line</span>
        <textarea value={env} onChange={(e) => setEnv(e.target.value)} rows={3} spellCheck={false} placeholder="API_BASE=https://…" data-testid="agent-env" />
      </label>
      {custom && (
        <label className="field">
          <span>Working folder of the process (optional)</span>
          <input value={cwd} onChange={(e) => setCwd(e.target.value)} spellCheck={false} placeholder="your home folder" />
        </label>
      )}
      <label className="checkbox" title="For agents that cannot create new files otherwise (Gemini CLI 0.61)">
        <input type="checkbox" checked={missingFileAsEmpty} onChange={(e) => setMissingFileAsEmpty(e.target.checked)} data-testid="agent-compat-missing-file" /> Compatibility: answer
        reads of missing files with empty content
      </label>
      <HostCommands rows={hostRows} onChange={setHostRows} />
      {agent && <p className="muted small">Changes apply the next time the agent starts.</p>}
      {error && (
        <ErrorAlert>{error}</ErrorAlert>
      )}
      <FormActions>
        <button className="primary" type="submit" disabled={busy} data-testid="agent-save">
          {agent ? 'Save' : 'Add agent'}
        </button>
        <button type="button" onClick={() => props.onDone(null)}>
          Cancel
        </button>
      </FormActions>
    </form>
  );
}
