/**
 * Agents reached over the network (ACP's draft Streamable HTTP and WebSocket transports): which URLs are
 * accepted. Only encrypted ones (`https:`, `wss:`), or plain ones that never leave this machine (`http:` and
 * `ws:` on a loopback address): the bearer token and the user's code travel on that connection.
 */

export type AgentUrlCheck = { ok: true; url: URL; transport: 'websocket' | 'http' } | { ok: false; error: string };

const MAX_URL_LENGTH = 2048;

/** A loopback host as URL.hostname spells it: localhost, 127.0.0.0/8, [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '[::1]') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((n) => Number(n) <= 255);
}

/** Whether `text` is meant as an agent's URL (its command field holds the URL of a network agent). */
export const looksLikeAgentUrl = (text: string): boolean => /^(wss?|https?):\/\//i.test(text.trim());

/** Checks an agent URL typed by the user (or stored): a sentence saying what is wrong, or the URL. */
export function checkAgentUrl(raw: string): AgentUrlCheck {
  const text = raw.trim();
  if (text.length === 0) return { ok: false, error: 'the URL is empty' };
  if (text.length > MAX_URL_LENGTH) return { ok: false, error: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: `"${text.slice(0, 200)}" is not a URL (an agent's URL looks like wss://agent.example.com/acp)` };
  }
  const scheme = url.protocol;
  if (!['https:', 'wss:', 'http:', 'ws:'].includes(scheme)) {
    return { ok: false, error: `${scheme} URLs are not agent URLs: use wss: or https: (ws: or http: only on this machine)` };
  }
  if (url.username || url.password) {
    return { ok: false, error: 'the URL holds a user name or password: put the token in the Token field instead, where it is stored encrypted' };
  }
  if ((scheme === 'http:' || scheme === 'ws:') && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      error:
        `${scheme} is accepted only on this machine (localhost, 127.0.0.1, [::1]): ${url.host} would get the token and your code unencrypted. ` +
        `Use ${scheme === 'ws:' ? 'wss:' : 'https:'} for an agent on another machine.`,
    };
  }
  url.hash = '';
  return { ok: true, url, transport: scheme === 'ws:' || scheme === 'wss:' ? 'websocket' : 'http' };
}

/** Where a network agent runs, for the session header: the URL's host (and port), or null for a command. */
export function agentUrlHost(command: string): string | null {
  if (!looksLikeAgentUrl(command)) return null;
  const check = checkAgentUrl(command);
  return check.ok ? check.url.host : null;
}
