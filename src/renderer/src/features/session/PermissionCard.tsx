import { TriangleAlert } from 'lucide-react';
import type { PermissionOption } from '@agentclientprotocol/sdk';
import { useState } from 'react';
import { create } from 'zustand';
import { kindText, labelDeception, nameContradiction } from '@shared/acp-thread/permission-option';
import { useApi } from '../../app/api-context';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { useNotices } from '../../app/notices';
import type { Api } from '../../ipc/client';
import { quickOption } from '../../ui/format';

export async function answerPermission(api: Api, sessionId: string, requestId: string, optionId: string | null, confirmMismatch = false): Promise<boolean> {
  const r = await api.call(
    'sessions.respondPermission',
    optionId === null
      ? { sessionId, requestId, outcome: 'cancelled' }
      : { sessionId, requestId, outcome: 'selected', optionId, ...(confirmMismatch ? { confirmMismatch: true } : {}) },
  );
  if (!r.ok) useNotices.getState().push('error', `Could not answer the permission request: ${r.error.message}`);
  return r.ok;
}

const isAlways = (o: PermissionOption): boolean => o.kind === 'allow_always' || o.kind === 'reject_always';

/** An "always" option whose name contradicts its kind, waiting for the user's confirmation (per request). */
const useConfirming = create<{ byRequest: Record<string, string | undefined> }>(() => ({ byRequest: {} }));
const setConfirming = (requestId: string, optionId: string | undefined) =>
  useConfirming.setState((s) => ({ byRequest: { ...s.byRequest, [requestId]: optionId } }));

/**
 * Picks an option (a click or a key). An "always" option whose name contradicts its kind is not answered
 * at once: the card asks the user to confirm what it really does (the rule it stores).
 */
export async function chooseOption(api: Api, sessionId: string, requestId: string, option: PermissionOption): Promise<boolean> {
  if (isAlways(option) && nameContradiction(option)) {
    setConfirming(requestId, option.optionId);
    return false;
  }
  return answerPermission(api, sessionId, requestId, option.optionId);
}

/**
 * The agent asks before running a tool: every option it offered, answerable with 1–9 or Y/N. Each option
 * leads with what its kind does, in the app's words; the agent's name for it is secondary, quoted, and
 * a name that contradicts the kind is warned about.
 */
export function PermissionCard({
  sessionId,
  requestId,
  options,
  note,
  rules,
}: {
  sessionId: string;
  requestId: string;
  options: readonly PermissionOption[];
  /** Why a rule did not answer (the agent offered only "always" options for it). */
  note?: string | undefined;
  /** What Switchboard remembers for each "always" option. */
  rules?: Record<string, string> | undefined;
}) {
  const api = useApi();
  const [sent, setSent] = useState<string | null>(null);
  const confirming = useConfirming((s) => s.byRequest[requestId]);
  const confirmOption = options.find((o) => o.optionId === confirming);
  const allow = quickOption(options, true);
  const reject = quickOption(options, false);
  const send = async (optionId: string | null, confirmMismatch = false) => {
    setSent(optionId ?? 'cancelled');
    setConfirming(requestId, undefined);
    if (!(await answerPermission(api, sessionId, requestId, optionId, confirmMismatch))) setSent(null);
  };
  const choose = (o: PermissionOption) => {
    if (isAlways(o) && nameContradiction(o)) setConfirming(requestId, o.optionId);
    else void send(o.optionId);
  };
  const warnings = [
    ...options.map((o) => nameContradiction(o)),
    ...options.filter(isAlways).map((o) => {
      const deceit = labelDeception(o.name);
      return deceit ? `${deceit} Switchboard stores no rule from it.` : null;
    }),
  ].filter((w): w is string => w !== null);
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
        {options.map((o, i) => {
          const mismatch = nameContradiction(o);
          const what = kindText(o.kind);
          return (
            <button
              key={o.optionId}
              className={`permission-option ${o.kind.startsWith('allow') ? 'allow' : 'reject'}${mismatch ? ' mismatch' : ''}`}
              disabled={sent !== null}
              onClick={() => choose(o)}
              data-testid="permission-option"
              data-kind={o.kind}
              data-option-id={o.optionId}
              data-mismatch={mismatch ? 'true' : undefined}
              aria-label={`${what}${o.name ? ` (the agent calls it “${visibleText(o.name)}”)` : ''}${rules?.[o.optionId] ? `, remembers: ${rules[o.optionId]}` : ''}${mismatch ? ' — warning: the name contradicts what it does' : ''}`}
            >
              {i < 9 && <kbd>{i + 1}</kbd>}
              {mismatch && (
                <span className="option-warning" aria-hidden="true">
                  <TriangleAlert size={13} />
                </span>
              )}
              <span className="option-action" data-testid="permission-option-action">
                {what}
              </span>
              {o.name && o.name.trim().toLowerCase() !== what.toLowerCase() && (
                <span className="option-agent-name" data-testid="permission-option-name">
                  “<VisibleText text={o.name.length > 80 ? `${o.name.slice(0, 80)}…` : o.name} />”
                </span>
              )}

            </button>
          );
        })}
        {options.length === 0 && (
          <button disabled={sent !== null} onClick={() => void send(null)}>
            Dismiss (the agent offered no options)
          </button>
        )}
      </div>
      {rules && options.some((o) => rules[o.optionId]) && (
        <div className="permission-rule-preview small">
          {options.map((o, i) =>
            rules[o.optionId] ? (
              <div key={o.optionId} data-testid="permission-option-rule" data-option-id={o.optionId}>
                {i < 9 ? `${i + 1}. ` : ''}
                {kindText(o.kind)} makes Switchboard remember: <CodeSpans text={rules[o.optionId]!} />
              </div>
            ) : null,
          )}
        </div>
      )}
      {note && (
        <div className="permission-note small" data-testid="permission-rule-note">
          {note}
        </div>
      )}
      {warnings.length > 0 && (
        <div className="permission-warning" role="alert" data-testid="permission-warning">
          <strong><TriangleAlert size={13} /> Check what you choose:</strong> {warnings.join(' ')} The buttons say what each choice really does.
        </div>
      )}
      {confirmOption && sent === null && (
        <div className="permission-confirm" role="alertdialog" aria-label="Confirm a rule" data-testid="permission-confirm">
          <span>
            {nameContradiction(confirmOption)} This stores a rule: <strong>{kindText(confirmOption.kind).toLowerCase()}</strong> requests of this agent like this one, in
            this folder, without asking.
          </span>
          <button className={`permission-option ${confirmOption.kind.startsWith('allow') ? 'allow' : 'reject'}`} onClick={() => void send(confirmOption.optionId, true)} data-testid="permission-confirm-yes">
            Yes, {kindText(confirmOption.kind).toLowerCase()}
          </button>
          <button onClick={() => setConfirming(requestId, undefined)} data-testid="permission-confirm-back">
            Back
          </button>
        </div>
      )}
    </div>
  );
}

/** Text with `code` spans (a rule's description) shown as code. */
function CodeSpans({ text }: { text: string }) {
  return <>{text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}
