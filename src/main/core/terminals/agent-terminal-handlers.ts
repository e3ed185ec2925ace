import type { Router } from '../base/router';
import type { AgentTerminals } from './agent-terminals';

/** The agentTerminal.* requests: the renderer's view of an agent's terminals (tool calls, sign-in). */
export function registerAgentTerminalHandlers(router: Router, terminals: AgentTerminals): void {
  router.handle('agentTerminal.snapshot', ({ terminalId }) => terminals.snapshot(terminalId));
  router.handle('agentTerminal.write', ({ terminalId, data }) => {
    terminals.write(terminalId, data);
    return {};
  });
  router.handle('agentTerminal.resize', ({ terminalId, cols, rows }) => {
    terminals.resize(terminalId, cols, rows);
    return {};
  });
  router.handle('agentTerminal.kill', ({ terminalId }) => {
    terminals.killAuth(terminalId);
    return {};
  });
}
