import { useState } from 'react';
import type { TabViewProps } from '../../app/contributions';
import { AgentTerminalView, describeExit, type ExitInfo } from '../../app/TerminalView';
import { VisibleText } from '../../ui/VisibleText';

/** An agent's sign-in command running in a terminal you type into. */
export function AuthTerminalTab({ tab }: TabViewProps) {
  const terminalId = String(tab.props.terminalId);
  const [exit, setExit] = useState<ExitInfo | null>(null);
  return (
    <div className="auth-terminal-tab" data-testid="auth-terminal">
      <div className="agent-log-bar">
        <strong><VisibleText text={tab.title} /></strong>
        <code className="muted small">{String(tab.props.commandLine ?? '')}</code>
      </div>
      <p className="muted small auth-terminal-note">
        {exit
          ? exit.exitCode === 0
            ? 'Done: the agent restarts signed in. You can close this tab.'
            : `The sign-in command ${describeExit(exit)}. Close this tab and try again from the Agents list.`
          : 'Follow the instructions below. When the command finishes successfully, the agent restarts signed in.'}
      </p>
      <div className="auth-terminal-body">
        <AgentTerminalView terminalId={terminalId} rows={24} interactive onExit={setExit} />
      </div>
    </div>
  );
}
