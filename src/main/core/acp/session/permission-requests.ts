import { randomUUID } from 'node:crypto';
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { toolCallIndex, RULE_META, type RuleAnswer } from '../../../../shared/acp-thread';
import { labelDeception, nameContradiction } from '../../../../shared/acp-thread/permission-option';
import { IpcFailure } from '../../../../shared/contract';
import type { PermissionRequestInfo } from '../../../../shared/contract/sessions';
import { describeScope, scopeProblem, stripBidi, type RequestSubject } from '../../../../shared/permission-scope';
import type { AskingSession } from './asking-session';
import { optionForDecision, ruleForOption } from './permission-rules';
import { requestSubject, scopeForAnswer } from './rule-scope';
import { fenceCovers } from './fence-answer';

interface PendingPermission {
  info: PermissionRequestInfo;
  toolCallId: string;
  toolKind: string;
  /** What the request names (its command, paths or title): the scope of a rule an "always" answer stores. */
  subject: RequestSubject;
  title: string;
  resolve: (response: RequestPermissionResponse) => void;
}

export type PermissionAnswer = { outcome: 'selected'; optionId: string; confirmMismatch?: boolean } | { outcome: 'cancelled' };

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** A live session's `session/request_permission` requests: answered by a stored rule, or waiting for the user. */
export class PermissionRequests {
  private readonly pending = new Map<string, PendingPermission>();

  constructor(private readonly session: AskingSession) {}

  get size(): number {
    return this.pending.size;
  }

  /** What the renderer shows of the requests still waiting. */
  infos(): PermissionRequestInfo[] {
    return [...this.pending.values()].map((p) => p.info);
  }

  /** Every request still waiting is answered cancelled (the turn ended, the session closed…). */
  cancelAll(): void {
    for (const id of [...this.pending.keys()]) this.resolve(id, CANCELLED, false);
  }

  request(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> | RequestPermissionResponse {
    const toolCall = params.toolCall;
    const toolCallId = toolCall.toolCallId;
    const thread = this.session.thread();
    const known = toolCallIndex(thread, toolCallId);
    const knownEntry = known !== undefined ? thread.entries[known - (thread.firstIndex ?? 0)] : undefined;
    const earlier = knownEntry?.kind === 'tool_call' ? knownEntry : undefined;
    const toolKind = toolCall.kind ?? earlier?.toolKind ?? 'other';
    if (this.session.turn()?.cancelled) return CANCELLED;
    const requestId = randomUUID();
    const title = (typeof toolCall.title === 'string' ? toolCall.title : null) ?? earlier?.title ?? null;
    const subject = requestSubject(
      { kind: toolKind, title, rawInput: toolCall.rawInput !== undefined && toolCall.rawInput !== null ? toolCall.rawInput : earlier?.rawInput, locations: toolCall.locations ?? earlier?.locations },
      this.session.cwd,
    );
    const rule = this.session.db(() => this.session.host.rules().find({ agentId: this.session.agentId, toolKind, sessionId: this.session.id, folder: this.session.cwd, subject }));
    let note: string | undefined;
    const fenced = rule ? null : this.fenceAnswer(params, toolKind, requestId, toolCall);
    if (fenced) return fenced;
    if (rule?.scope) {
      const option = optionForDecision(params.options, rule.decision);
      const byRule: RuleAnswer = { ruleId: rule.id, agentId: this.session.agentId, toolKind, decision: rule.decision, scope: rule.scope };
      if (option) {
        this.session.emit([
          { event: { type: 'permission', requestId, toolCall, options: params.options }, seq: null },
          { event: { type: 'permission_resolved', requestId, toolCallId, outcome: 'selected', optionId: option.optionId, byRule }, seq: null },
        ]);
        this.session.host.bus.emit('session.permissionResolved', { sessionId: this.session.id, requestId, outcome: 'selected', optionId: option.optionId, byRule: true });
        return { outcome: { outcome: 'selected', optionId: option.optionId }, _meta: { [RULE_META]: byRule } };
      }
      note =
        `Your rule (${rule.decision === 'allow' ? 'allow' : 'reject'}: ${describeScope(toolKind, rule.scope)}) would answer this, but the agent offers only ` +
        `“always” options for it, which would make the agent remember more than the rule says. Answer it yourself.`;
    }
    const info: PermissionRequestInfo = {
      sessionId: this.session.id,
      agentId: this.session.agentId,
      requestId,
      toolCall,
      options: params.options,
      createdAt: Date.now(),
    };
    return new Promise<RequestPermissionResponse>((resolve) => {
      this.pending.set(requestId, { info, toolCallId, toolKind, subject, title: title ?? '', resolve });
      const rules = this.rulePreviews(params.options, toolKind, subject, title ?? '');
      this.session.emit([{ event: { type: 'permission', requestId, toolCall, options: params.options, ...(note ? { note } : {}), ...(rules ? { rules } : {}) }, seq: null }]);
      this.session.host.bus.emit('session.permission', info);
      this.session.host.permissionAsked(info);
      this.session.waitForUser();
      // The agent withdrew the request ($/cancel_request) or the connection closed.
      signal.addEventListener('abort', () => this.resolve(requestId, CANCELLED, false), { once: true });
    });
  }

  /** Allowed without asking because the session is fenced (and the user lets the fence widen auto-approval), or null. */
  private fenceAnswer(params: RequestPermissionRequest, toolKind: string, requestId: string, toolCall: RequestPermissionRequest['toolCall']): RequestPermissionResponse | null {
    const network = fenceCovers(toolKind) ? this.session.fence() : null;
    // A once-only allow: an "always" answer would make the agent remember more than this session's fence.
    const option = network ? params.options.find((o) => o.kind === 'allow_once') : undefined;
    if (!network || !option) return null;
    const byRule: RuleAnswer = { ruleId: 0, agentId: this.session.agentId, toolKind, decision: 'allow', scope: { subject: 'title', match: 'exact', pattern: 'in the fence', folder: this.session.cwd, sessionId: this.session.id }, fenced: network };
    this.session.emit([
      { event: { type: 'permission', requestId, toolCall, options: params.options }, seq: null },
      { event: { type: 'permission_resolved', requestId, toolCallId: toolCall.toolCallId, outcome: 'selected', optionId: option.optionId, byRule }, seq: null },
    ]);
    this.session.host.bus.emit('session.permissionResolved', { sessionId: this.session.id, requestId, outcome: 'selected', optionId: option.optionId, byRule: true });
    return { outcome: { outcome: 'selected', optionId: option.optionId }, _meta: { [RULE_META]: byRule } };
  }

  /** What each "always" option would make Switchboard remember (none for a label it would refuse). */
  private rulePreviews(options: readonly PermissionOption[], toolKind: string, subject: RequestSubject, title: string): Record<string, string> | undefined {
    const out: Record<string, string> = {};
    for (const option of options) {
      if (!ruleForOption(option) || labelDeception(option.name)) continue;
      const scope = scopeForAnswer({ option, subject, title, cwd: this.session.cwd, sessionId: this.session.id });
      if (!scopeProblem(scope)) out[option.optionId] = describeScope(toolKind, scope);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * The user's answer. An "always" option becomes a rule no wider than what the user was shown (see
   * rule-scope.ts). It is refused, and the request stays pending, when its label hides direction controls
   * or look-alike letters, when no rule can be scoped for the request, or when its name contradicts its kind
   * (an agent's "Reject" of kind allow_always) unless `confirmMismatch`.
   */
  respond(requestId: string, answer: PermissionAnswer): void {
    const pending = this.pending.get(requestId);
    if (!pending) throw new IpcFailure('not_found', `no pending permission request ${requestId}`);
    if (answer.outcome === 'cancelled') {
      this.resolve(requestId, CANCELLED, false);
      return;
    }
    const option = pending.info.options.find((o) => o.optionId === answer.optionId);
    if (!option) throw new IpcFailure('invalid_params', `option ${answer.optionId} was not offered`);
    const decision = ruleForOption(option);
    if (decision) {
      const deceit = labelDeception(option.name);
      if (deceit) throw new IpcFailure('conflict', `${deceit} Switchboard stores no rule from it. Nothing was answered; choose a “once” option.`);
      const mismatch = nameContradiction(option);
      if (mismatch && !answer.confirmMismatch) {
        throw new IpcFailure('conflict', `${mismatch} Nothing was answered; confirm it on the card to store this rule.`);
      }
      const scope = scopeForAnswer({ option, subject: pending.subject, title: pending.title, cwd: this.session.cwd, sessionId: this.session.id });
      const problem = scopeProblem(scope);
      if (problem) throw new IpcFailure('conflict', `No rule can be stored for this request: ${problem}. Nothing was answered; choose a “once” option.`);
      this.session.db(() => this.session.host.rules().set({ agentId: this.session.agentId, toolKind: pending.toolKind, scope, decision, label: stripBidi(option.name) }));
    }
    this.resolve(requestId, { outcome: { outcome: 'selected', optionId: option.optionId } }, false);
  }

  private resolve(requestId: string, response: RequestPermissionResponse, byRule: boolean): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    this.pending.delete(requestId);
    pending.resolve(response);
    const selected = response.outcome.outcome === 'selected' ? response.outcome.optionId : null;
    this.session.emit([
      {
        event: { type: 'permission_resolved', requestId, toolCallId: pending.toolCallId, outcome: selected ? 'selected' : 'cancelled', optionId: selected },
        seq: null,
      },
    ]);
    this.session.host.bus.emit('session.permissionResolved', {
      sessionId: this.session.id,
      requestId,
      outcome: selected ? 'selected' : 'cancelled',
      optionId: selected,
      byRule,
    });
    this.session.answered();
  }
}
