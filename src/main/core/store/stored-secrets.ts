/**
 * What is stored of a message Switchboard sends: the MCP servers given with a session (session/new, load, resume,
 * fork) carry the user's secrets in their env values and headers (API keys, the delegation channel's secret). The
 * agent gets them; the message log keeps only their names. The same for a model provider's headers (providers/set),
 * which go to the agent's log.
 */

const GIVES_MCP_SERVERS: ReadonlySet<string> = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);
export const NOT_STORED = '[not stored]';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const namesOnly = (pairs: unknown): unknown =>
  Array.isArray(pairs) ? pairs.map((p) => (isRecord(p) ? { ...p, value: NOT_STORED } : p)) : pairs;

/** `providers/set` (unstable ACP) carries the headers of a model provider: API keys, as a map of name to value. */
const SETS_PROVIDER = 'providers/set';

/** The line to store for `message` (the line sent when there is nothing to hide). */
export function storedLine(method: string | null, message: Record<string, unknown>, line: string): string {
  if (method === SETS_PROVIDER) {
    const params = message.params;
    if (!isRecord(params) || !isRecord(params.headers) || Object.keys(params.headers).length === 0) return line;
    const headers = Object.fromEntries(Object.keys(params.headers).map((k) => [k, NOT_STORED]));
    return JSON.stringify({ ...message, params: { ...params, headers } });
  }
  if (method === null || !GIVES_MCP_SERVERS.has(method)) return line;
  const params = message.params;
  if (!isRecord(params) || !Array.isArray(params.mcpServers) || params.mcpServers.length === 0) return line;
  const mcpServers = params.mcpServers.map((s: unknown) =>
    isRecord(s) ? { ...s, ...('env' in s ? { env: namesOnly(s.env) } : {}), ...('headers' in s ? { headers: namesOnly(s.headers) } : {}) } : s,
  );
  return JSON.stringify({ ...message, params: { ...params, mcpServers } });
}

/** A stored message's body as it should have been stored (the same text when there is nothing to hide, or it is not JSON). */
export function storedBody(method: string | null, body: string): string {
  if (method === null || (!GIVES_MCP_SERVERS.has(method) && method !== SETS_PROVIDER)) return body;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return body;
  }
  return isRecord(message) ? storedLine(method, message, body) : body;
}
