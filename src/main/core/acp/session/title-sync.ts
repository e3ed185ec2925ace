import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';
import type { AgentRuntime } from '../runtimes/agent-runtime';

/** The longest title sent to an agent (the user's rename is bounded by the contract; this bounds what the agent is asked to store). */
const MAX_TITLE = 500;

/**
 * The user renamed a live session: an agent that offers `session/set_title` (sessionCapabilities.title) stores the
 * name too, so that its own session list and other clients show it. The user's name stays Switchboard's title
 * whatever the agent answers (a normalized title, an error): the answer is only logged.
 */
export async function sendTitleToAgent(runtime: AgentRuntime, acpSessionId: string | null, title: string, warn: (message: string) => void): Promise<void> {
  const offers = (runtime.capabilities?.sessionCapabilities as { title?: unknown } | undefined)?.title;
  if (!offers || acpSessionId === null || !runtime.connected) return;
  try {
    const r = await runtime.request<{ title?: unknown }>(unstableMethods.agent.session.setTitle, { sessionId: acpSessionId, title: title.slice(0, MAX_TITLE) });
    if (typeof r?.title === 'string' && r.title !== title) runtime.log.write('note', `session/set_title: the agent stored "${r.title.slice(0, 200)}"`);
  } catch (e) {
    warn(`the agent did not take the new title: ${(e as Error).message.slice(0, 300)}`);
  }
}
