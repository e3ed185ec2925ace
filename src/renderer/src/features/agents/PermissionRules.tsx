import { X } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import type { PermissionRule } from '@shared/contract/permissions';
import { describeScope } from '@shared/permission-scope';
import { useApi, useEvent } from '../../app/api-context';

/** The "always" answers given to this agent, each with its scope; removing one makes the agent ask again. */
export function PermissionRules({ agentId }: { agentId: string }) {
  const api = useApi();
  const [rules, setRules] = useState<PermissionRule[]>([]);
  const load = useCallback(() => {
    void api.call('permissionRules.list', { agentId }).then((r) => r.ok && setRules(r.value.rules));
  }, [api, agentId]);
  useEffect(load, [load]);
  useEvent('session.permissionResolved', load, [load]);
  if (rules.length === 0) return null;
  return (
    <div className="permission-rules" data-testid="permission-rules">
      <div className="auth-title">Remembered answers</div>
      <ul>
        {rules.map((r) => {
          const what = r.scope ? describeScope(r.toolKind, r.scope) : `every ${r.toolKind} request, in every project (review)`;
          return (
            <li key={r.id} data-testid="permission-rule">
              <span className={`tag ${r.decision === 'allow' ? 'new' : ''}`}>{r.decision === 'allow' ? 'always allow' : 'always reject'}</span>{' '}
              <span title="Settings › Permissions shows and edits every part of it">
                {r.toolKind}: {what}
              </span>
              <button
                className="icon small"
                aria-label={`Forget the rule: ${what}`}
                title="Forget (ask again)"
                onClick={() => void api.call('permissionRules.remove', { id: r.id }).then(load)}
              >
                <X size={12} />
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
