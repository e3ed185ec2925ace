/**
 * The hosts an agent's API is on, offered as the allow-list of a container with the network "only the agent's
 * API": the hosts of the URLs its environment points it at (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`…), or, when
 * it names none, the public API of the agent's provider, known by its registry id or command.
 */

/** Providers' public APIs, by a word of the agent's registry id or command. */
const KNOWN: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/claude|anthropic/, ['api.anthropic.com']],
  [/gemini|google/, ['generativelanguage.googleapis.com']],
  [/codex|openai/, ['api.openai.com']],
  [/qwen/, ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com']],
  [/mistral|vibe/, ['api.mistral.ai']],
];

/** Variables naming where an agent's API is. */
const URL_VAR = /(BASE_URL|API_URL|API_BASE|ENDPOINT|_HOST_URL)$/i;

export interface AgentLike {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  registryId: string | null;
}

/** `host` (https on 443), `host:port` otherwise; null when the value is not an http(s) URL. */
export function allowEntryOf(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!/^[a-z0-9.-]{1,253}$/.test(host)) return null;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return port === '443' ? host : `${host}:${port}`;
}

export function agentApiHosts(agent: AgentLike, extraEnv: Readonly<Record<string, string>> = {}): string[] {
  const env = { ...agent.env, ...extraEnv };
  const fromEnv = Object.entries(env).flatMap(([k, v]) => (URL_VAR.test(k) ? [allowEntryOf(v)] : [])).filter((h): h is string => h !== null);
  if (fromEnv.length > 0) return [...new Set(fromEnv)];
  const words = `${agent.registryId ?? ''} ${agent.command} ${agent.args.slice(0, 3).join(' ')}`.toLowerCase();
  return [...new Set(KNOWN.flatMap(([re, hosts]) => (re.test(words) ? hosts : [])))];
}
