import { looksLikeAgentUrl } from '../../../shared/agent-url';
import type { AgentRecord } from './agent-repository';

/**
 * A network agent is a custom agent whose command is its URL (ws:, wss:, http:, https:): no program can be
 * named so, and the URL is then shown, edited and exported where a command is.
 */
export const isNetworkAgent = (record: Pick<AgentRecord, 'command' | 'source'>): boolean => record.source === 'custom' && looksLikeAgentUrl(record.command);

/**
 * The secret scope of a network agent's bearer token: apart from the agent's own scope, whose secrets are
 * environment variables (sign-in values a logout forgets) while the token is how Switchboard reaches it.
 */
export const agentTokenScope = (agentId: string): string => `agent-url-token:${agentId}`;
export const AGENT_TOKEN_NAME = 'bearer';
