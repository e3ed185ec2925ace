import type { PermissionOption } from '@agentclientprotocol/sdk';
import { useState } from 'react';
import { useApi } from '../../app/api-context';
import { useNotices } from '../../app/notices';
import type { Api } from '../../ipc/client';
import { OPTION_KIND_TEXT, quickOption } from './format';

export async function answerPermission(api: Api, sessionId: string, requestId: string, optionId: string | null): Promise<boolean> {
  const r = await api.call(
    'sessions.respondPermission',
    optionId === null ? { sessionId, requestId, outcome: 'cancelled' } : { sessionId, requestId, outcome: 'selected', optionId },
  );
  if (!r.ok) useNotices.getState().push('error', `Could not answer the permission request: ${r.error.message}`);
  return r.ok;
}

/** The agent asks before running a tool: every option it offered, answerable with 1–9 or Y/N. */
export function PermissionCard({ sessionId, requestId, options }: { sessionId: string; requestId: string; options: readonly PermissionOption[] }) {
  const api = useApi();
  const [sent, setSent] = useState<string | null>(null);
  const allow = quickOption(options, true);
  const reject = quickOption(options, false);
  const choose = async (optionId: string | null) => {
    setSent(optionId ?? 'cancelled');
    if (!(await answerPermission(api, sessionId, requestId, optionId))) setSent(null);
  };
  return (
    <div className="permission-card" role="group" aria-label="Permission request" data-testid="permission-card" data-request-id={requestId}>
      <div className="permission-question">
        <strong>The agent asks for permission.</strong>{' '}
        <span className="muted">
          Press {options.length > 1 ? `1–${Math.min(options.length, 9)}` : '1'}
          {allow ? ', Y to allow' : ''}
          {reject ? ', N to reject' : ''}.
        </span>
      </div>
      <div className="permission-options">
        {options.map((o, i) => (
          <button
            key={o.optionId}
            className={`permission-option ${o.kind.startsWith('allow') ? 'allow' : 'reject'}`}
            disabled={sent !== null}
            onClick={() => void choose(o.optionId)}
            data-testid="permission-option"
            data-kind={o.kind}
            title={OPTION_KIND_TEXT[o.kind] ?? o.kind}
          >
            {i < 9 && <kbd>{i + 1}</kbd>}
            <span>{o.name || OPTION_KIND_TEXT[o.kind]}</span>
            {o.name && OPTION_KIND_TEXT[o.kind] && o.name.toLowerCase() !== OPTION_KIND_TEXT[o.kind]!.toLowerCase() && (
              <span className="option-kind">{OPTION_KIND_TEXT[o.kind]}</span>
            )}
          </button>
        ))}
        {options.length === 0 && (
          <button disabled={sent !== null} onClick={() => void choose(null)}>
            Dismiss (the agent offered no options)
          </button>
        )}
      </div>
    </div>
  );
}
