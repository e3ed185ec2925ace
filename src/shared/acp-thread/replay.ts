import type { ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { parseElicitation, type ElicitationAction, type ElicitationContent } from '../elicitation';
import { isRecord } from './messages';
import { applyEvents, createThread } from './reducer';
import { scopeProblem, type RuleScope } from '../permission-scope';
import { RULE_META, type RuleAnswer, type ThreadEvent, type ThreadState } from './types';

/** One persisted ACP message (a row of `acp_messages`, or one line of a packed row). */
export interface WireMessage {
  direction: 'c2a' | 'a2c';
  /** The JSON line, or the already parsed message. */
  body: string | unknown;
}

interface PendingRequest {
  method: string;
  params: Record<string, unknown>;
  /** session/prompt: the prompt id its events carry. */
  promptId?: string;
}

const idKey = (id: unknown): string | null => (typeof id === 'string' ? `s:${id}` : typeof id === 'number' ? `n:${id}` : null);

/**
 * Turns a session's persisted wire messages (both directions, in order) into thread events: the same
 * events the live client emits, so a stored session renders like a live one.
 */
export class WireReplayer {
  private readonly c2a = new Map<string, PendingRequest>();
  private readonly a2c = new Map<string, PendingRequest>();
  private prompts = 0;

  /**
   * `promptIds`: the live prompt id of each session/prompt, in order (the n-th request's at n), as the live
   * client named it (checkpoints know turns by it); a prompt without one is named after its JSON-RPC id.
   */
  constructor(
    private readonly promptIds: ReadonlyArray<string | undefined> = [],
    /**
     * Whether a `session/update` is folded: main passes the live client's own check (update-check.ts), so that a
     * stored log folds into what the live thread showed (an update the live client refused is left out here too).
     */
    private readonly acceptUpdate: (update: Record<string, unknown>) => boolean = () => true,
  ) {}

  push(message: WireMessage): ThreadEvent[] {
    let msg: unknown = message.body;
    if (typeof msg === 'string') {
      try {
        msg = JSON.parse(msg);
      } catch {
        return [];
      }
    }
    if (!isRecord(msg)) return [];
    const key = idKey(msg.id);
    const params = isRecord(msg.params) ? msg.params : {};
    const outgoing = message.direction === 'c2a';
    if (typeof msg.method === 'string') {
      const promptId = outgoing && msg.method === 'session/prompt' && key !== null ? (this.promptIds[this.prompts++] ?? `rpc-${key}`) : undefined;
      if (key !== null) (outgoing ? this.c2a : this.a2c).set(key, { method: msg.method, params, ...(promptId ? { promptId } : {}) });
      return outgoing ? this.fromClient(msg.method, params, promptId ?? null) : this.fromAgent(msg.method, params, key);
    }
    if (key === null) return [];
    const pending = (outgoing ? this.a2c : this.c2a).get(key);
    if (!pending) return [];
    (outgoing ? this.a2c : this.c2a).delete(key);
    return outgoing ? this.clientResponse(pending, key, msg) : this.agentResponse(pending, key, msg);
  }

  private fromClient(method: string, params: Record<string, unknown>, promptId: string | null): ThreadEvent[] {
    if (method === 'session/prompt' && promptId) {
      return [{ type: 'prompt', promptId, content: (Array.isArray(params.prompt) ? params.prompt : []) as ContentBlock[] }];
    }
    if (method === 'session/cancel') return [{ type: 'cancel' }];
    return [];
  }

  private fromAgent(method: string, params: Record<string, unknown>, key: string | null): ThreadEvent[] {
    if (method === 'session/update' && isRecord(params.update)) return this.acceptUpdate(params.update) ? [{ type: 'update', update: params.update as unknown as SessionUpdate }] : [];
    if (method === 'session/request_permission' && key && isRecord(params.toolCall)) {
      return [
        {
          type: 'permission',
          requestId: `rpc-${key}`,
          toolCall: params.toolCall as never,
          options: (Array.isArray(params.options) ? params.options : []) as never,
        },
      ];
    }
    if (method === 'elicitation/create' && key) {
      const parsed = parseElicitation(params);
      return parsed.ok ? [{ type: 'elicitation', requestId: `rpc-${key}`, request: parsed.value }] : [];
    }
    if (method === 'elicitation/complete' && typeof params.elicitationId === 'string') return [{ type: 'elicitation_complete', elicitationId: params.elicitationId }];
    return [];
  }

  /** The agent answered one of the client's requests. */
  private agentResponse(req: PendingRequest, key: string, msg: Record<string, unknown>): ThreadEvent[] {
    const result = isRecord(msg.result) ? msg.result : null;
    const error = isRecord(msg.error) ? msg.error : null;
    switch (req.method) {
      case 'session/prompt':
        return [
          {
            type: 'turn_end',
            promptId: req.promptId ?? `rpc-${key}`,
            stopReason: result && typeof result.stopReason === 'string' ? (result.stopReason as StopReason) : null,
            error: error
              ? { code: typeof error.code === 'number' ? error.code : 'error', message: typeof error.message === 'string' ? error.message : 'error' }
              : result
                ? null
                : { code: 'invalid_response', message: 'the agent answered the prompt without a stop reason' },
          },
        ];
      case 'session/new':
      case 'session/fork':
      case 'session/load':
      case 'session/resume':
        return result ? [{ type: 'setup', modes: (result.modes ?? null) as never, configOptions: (result.configOptions ?? null) as never }] : [];
      case 'session/set_mode':
        return result && typeof req.params.modeId === 'string' ? [{ type: 'mode', modeId: req.params.modeId }] : [];
      case 'session/set_config_option':
        return result && Array.isArray(result.configOptions) ? [{ type: 'config_options', configOptions: result.configOptions as never }] : [];
      default:
        return [];
    }
  }

  /** The client answered one of the agent's requests. */
  private clientResponse(req: PendingRequest, key: string, msg: Record<string, unknown>): ThreadEvent[] {
    if ((req.method === 'terminal/output' || req.method === 'terminal/wait_for_exit') && typeof req.params.terminalId === 'string' && isRecord(msg.result)) {
      return [terminalEvent(req.method, req.params.terminalId, msg.result)];
    }
    if (req.method === 'elicitation/create') return elicitationAnswer(`rpc-${key}`, msg.result);
    if (req.method !== 'session/request_permission' || !isRecord(req.params.toolCall)) return [];
    const toolCallId = req.params.toolCall.toolCallId;
    if (typeof toolCallId !== 'string') return [];
    const outcome = isRecord(msg.result) && isRecord(msg.result.outcome) ? msg.result.outcome : null;
    const selected = outcome?.outcome === 'selected' && typeof outcome.optionId === 'string';
    const byRule = selected && isRecord(msg.result) && isRecord(msg.result._meta) ? ruleAnswerOf(msg.result._meta[RULE_META]) : null;
    return [
      {
        type: 'permission_resolved',
        requestId: `rpc-${key}`,
        toolCallId,
        outcome: selected ? 'selected' : 'cancelled',
        optionId: selected ? (outcome!.optionId as string) : null,
        ...(byRule ? { byRule } : {}),
      },
    ];
  }
}

/** The rule named in a stored permission answer, when it is well formed. */
function ruleAnswerOf(v: unknown): RuleAnswer | null {
  if (!isRecord(v) || !isRecord(v.scope)) return null;
  const { ruleId, agentId, toolKind, decision } = v;
  const { subject, match, pattern, folder, sessionId } = v.scope;
  if (typeof ruleId !== 'number' || typeof agentId !== 'string' || typeof toolKind !== 'string' || (decision !== 'allow' && decision !== 'reject')) return null;
  if (typeof pattern !== 'string' || typeof folder !== 'string' || (sessionId !== null && typeof sessionId !== 'string')) return null;
  const scope = { subject, match, pattern, folder, sessionId } as RuleScope;
  if (!['command', 'path', 'title'].includes(scope.subject) || !['exact', 'prefix', 'glob'].includes(scope.match) || scopeProblem(scope)) return null;
  const fenced = v.fenced === 'none' || v.fenced === 'api' ? v.fenced : undefined;
  return { ruleId, agentId, toolKind, decision, scope, ...(fenced ? { fenced } : {}) };
}

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

function elicitationAnswer(requestId: string, result: unknown): ThreadEvent[] {
  if (!isRecord(result) || typeof result.action !== 'string' || !ACTIONS.has(result.action)) return [];
  const content = result.action === 'accept' && isRecord(result.content) ? (result.content as ElicitationContent) : null;
  return [{ type: 'elicitation_resolved', requestId, action: result.action as ElicitationAction, content }];
}

const exitOf = (x: Record<string, unknown>) => ({
  exitCode: typeof x.exitCode === 'number' ? x.exitCode : null,
  signal: typeof x.signal === 'string' ? x.signal : null,
});

function terminalEvent(method: string, terminalId: string, result: Record<string, unknown>): ThreadEvent {
  if (method === 'terminal/wait_for_exit') return { type: 'terminal_output', terminalId, output: null, truncated: false, exit: exitOf(result) };
  return {
    type: 'terminal_output',
    terminalId,
    output: typeof result.output === 'string' ? result.output : '',
    truncated: result.truncated === true,
    exit: isRecord(result.exitStatus) ? exitOf(result.exitStatus) : null,
  };
}

/** Rebuilds a thread from persisted messages. */
export function threadFromWire(
  messages: Iterable<WireMessage>,
  initial: ThreadState = createThread(),
  promptIds: ReadonlyArray<string | undefined> = [],
  acceptUpdate?: (update: Record<string, unknown>) => boolean,
): ThreadState {
  const replay = new WireReplayer(promptIds, acceptUpdate);
  const events: ThreadEvent[] = [];
  for (const m of messages) for (const e of replay.push(m)) events.push(e);
  return applyEvents(initial, events);
}
