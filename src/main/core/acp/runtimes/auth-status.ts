import type { AgentAuthState, AgentAuthStatus } from '../../../../shared/contract/agents';

/**
 * What an agent says of its own sign-in, in the two shapes real agents send:
 * - ACP (unstable) `auth/status` answers and `auth/status_update` notifications: `{state, accounts}`;
 * - Claude Agent 0.101's interim extension `_auth/status_update`: `{authStatus: {kind, label, detail, account}}`
 *   (`kind: "none"` is a known signed-out state; no push at all means "not reported").
 * Everything is the agent's text: bounded here, shown through VisibleText.
 */

const MAX_ACCOUNTS = 8;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.replace(/\s+/g, ' ').trim();
  if (t === '') return null;
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

const ACP_STATES: Record<string, AgentAuthState> = {
  authenticated: 'signed_in',
  unauthenticated: 'signed_out',
  not_required: 'not_required',
  unknown: 'unknown',
};

/** The ACP shape (`auth/status` result, `auth/status_update` params); null when it is not one. */
export function parseAcpAuthStatus(params: unknown, now = Date.now()): AgentAuthStatus | null {
  if (!isRecord(params) || typeof params.state !== 'string') return null;
  // Values a client does not recognise are `unknown` (the schema says so).
  const state = ACP_STATES[params.state] ?? 'unknown';
  const accounts = (Array.isArray(params.accounts) ? params.accounts : []).flatMap((a) => {
    if (!isRecord(a)) return [];
    const label = text(a.label, 200);
    if (label === null) return [];
    const detail = [text(a.name, 100), text(a.email, 100), text(a.organization, 100)].filter((x): x is string => x !== null).join(' · ');
    return [{ label, detail: detail === '' ? null : detail.slice(0, 300), active: typeof a.active === 'boolean' ? a.active : null }];
  });
  return { state, accounts: accounts.slice(0, MAX_ACCOUNTS), at: now };
}

/** Claude Agent's `_auth/status_update` params; null when it is not that shape. */
export function parseClaudeAuthStatus(params: unknown, now = Date.now()): AgentAuthStatus | null {
  const s = isRecord(params) ? params.authStatus : null;
  if (!isRecord(s) || typeof s.kind !== 'string') return null;
  if (s.kind === 'none') return { state: 'signed_out', accounts: [], at: now };
  const label = text(s.label, 200) ?? text(s.kind, 60) ?? 'signed in';
  const account = isRecord(s.account) ? s.account : {};
  const detail = [text(s.detail, 100), text(account.email, 100), text(account.organization, 100)].filter((x): x is string => x !== null).join(' · ');
  return { state: 'signed_in', accounts: [{ label, detail: detail === '' ? null : detail.slice(0, 300), active: true }], at: now };
}

/** A sign-in the agent had lapsed: it said signed in, and now says signed out. */
export const authLapsed = (before: AgentAuthStatus | null, after: AgentAuthStatus): boolean => before?.state === 'signed_in' && after.state === 'signed_out';

/** The account shown with a status, in words ("Anthropic API key (ANTHROPIC_API_KEY)"). */
export function authAccountText(status: AgentAuthStatus | null): string | null {
  const a = status?.accounts.find((x) => x.active !== false) ?? status?.accounts[0];
  if (!a) return null;
  return a.detail ? `${a.label} (${a.detail})` : a.label;
}
