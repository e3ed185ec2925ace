import type { AgentAuthStatus } from '@shared/contract/agents';
import { VisibleText } from '../../ui/VisibleText';

const STATE_TEXT: Record<AgentAuthStatus['state'], string | null> = {
  signed_in: 'signed in',
  signed_out: 'signed out',
  not_required: 'no sign-in needed',
  unknown: null,
};

const accountText = (a: AgentAuthStatus['accounts'][number]) => (a.detail ? `${a.label} (${a.detail})` : a.label);

/** What the agent itself says of its sign-in (auth/status): nothing when it said nothing or does not know. */
export function AuthBadge({ auth }: { auth: AgentAuthStatus | null | undefined }) {
  const text = auth ? STATE_TEXT[auth.state] : null;
  if (!auth || !text) return null;
  const account = auth.accounts.find((a) => a.active !== false) ?? auth.accounts[0];
  return (
    <span className={`agent-auth-state ${auth.state}`} data-testid="agent-auth-state" data-state={auth.state} title={account ? accountText(account) : undefined}>
      {text}
    </span>
  );
}

/** The accounts the agent reports, under its details. */
export function AuthAccounts({ auth }: { auth: AgentAuthStatus | null | undefined }) {
  if (!auth || auth.accounts.length === 0) return null;
  return (
    <ul className="agent-auth-accounts small muted" data-testid="agent-auth-accounts">
      {auth.accounts.map((a, i) => (
        <li key={i}>
          <VisibleText text={accountText(a)} />
          {a.active === true && auth.accounts.length > 1 ? ' · in use' : ''}
        </li>
      ))}
    </ul>
  );
}
