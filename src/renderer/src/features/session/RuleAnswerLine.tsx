import { ShieldCheck, ShieldX } from 'lucide-react';
import type { RuleAnswer } from '@shared/acp-thread';
import { scopeParts } from '@shared/permission-scope';
import { agentName, useAgents } from '../agents';
import { openPermissionRule } from '../settings';
import { VisibleText } from '../../ui/VisibleText';

/** "Allowed by rule: Claude · run `echo *` in proj", with a link to the rule on the permissions page. */
export function RuleAnswerLine({ answer }: { answer: RuleAnswer }) {
  const name = useAgents((s) => agentName(s.agents, answer.agentId));
  const allowed = answer.decision === 'allow';
  const Icon = allowed ? ShieldCheck : ShieldX;
  const p = scopeParts(answer.toolKind, answer.scope);
  if (answer.fenced) {
    return (
      <div className="rule-answer allow" data-testid="rule-answer" data-rule-id={0} data-fenced={answer.fenced}>
        <Icon size={13} aria-hidden />
        <span>
          Allowed because the session is fenced: it runs in a container with {answer.fenced === 'none' ? 'no network' : "only the agent's API"}, and Settings → Containers allows every edit and command inside
        </span>
      </div>
    );
  }
  return (
    <div className={`rule-answer ${allowed ? 'allow' : 'reject'}`} data-testid="rule-answer" data-rule-id={answer.ruleId}>
      <Icon size={13} aria-hidden />
      <span>
        {allowed ? 'Allowed' : 'Rejected'} by rule: {name} · {p.verb} <code>{p.pattern}</code> in <VisibleText text={p.folder} />
        {p.sessionOnly ? ' (this session only)' : ''}
      </span>
      <button className="link-button small" onClick={() => openPermissionRule(answer.ruleId)} data-testid="rule-answer-link">
        Show the rule
      </button>
    </div>
  );
}
