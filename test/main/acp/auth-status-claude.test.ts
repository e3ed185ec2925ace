import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAcpAuthStatus, parseClaudeAuthStatus } from '../../../src/main/core/acp/runtimes/auth-status';

/**
 * Issue 40: what the real Claude Agent 0.101 sends of its sign-in (recorded against the fake LLM): not ACP's
 * `auth/status`, but its own `_auth/status_update` push, advertised in `agentCapabilities._meta.authStatus`.
 */

const transcript = (name: string) =>
  gunzipSync(readFileSync(fileURLToPath(new URL(`../../fixtures/transcripts/${name}`, import.meta.url))))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; msg: Record<string, unknown> });

describe('Claude Agent’s sign-in status', () => {
  it('is read from the recorded _auth/status_update as signed in with its API key', () => {
    const lines = transcript('claude-tools.jsonl.gz');
    const init = lines.find((l) => l.dir === 'a2c' && (l.msg.result as { agentCapabilities?: unknown } | undefined)?.agentCapabilities);
    expect((init!.msg.result as { agentCapabilities: { _meta: Record<string, unknown>; auth?: { status?: unknown } } }).agentCapabilities._meta.authStatus).toEqual({});
    // It does not advertise ACP's auth/status (so Switchboard does not ask it), only pushes its own.
    expect((init!.msg.result as { agentCapabilities: { auth?: { status?: unknown } } }).agentCapabilities.auth?.status).toBeUndefined();
    const push = lines.find((l) => l.dir === 'a2c' && l.msg.method === '_auth/status_update')!;
    expect(parseClaudeAuthStatus(push.msg.params, 1)).toEqual({ state: 'signed_in', accounts: [{ label: 'Anthropic API key', detail: 'ANTHROPIC_API_KEY', active: true }], at: 1 });
    expect(parseAcpAuthStatus(push.msg.params)).toBeNull();
  });

  it('reads "Not logged in" (kind none) as signed out, and a subscription account with its email', () => {
    expect(parseClaudeAuthStatus({ authStatus: { kind: 'none', label: 'Not logged in' } }, 1)).toEqual({ state: 'signed_out', accounts: [], at: 1 });
    expect(parseClaudeAuthStatus({ authStatus: { kind: 'account', label: 'Claude Max', account: { email: 'me@example.com', plan: 'max' } } }, 1)?.accounts).toEqual([
      { label: 'Claude Max', detail: 'me@example.com', active: true },
    ]);
  });

  it('takes an ACP state it does not know as unknown', () => {
    expect(parseAcpAuthStatus({ state: 'expiring_soon' })?.state).toBe('unknown');
    expect(parseAcpAuthStatus({ state: 7 })).toBeNull();
  });
});
