import type { StopReason } from '@agentclientprotocol/sdk';
import type { ThreadEvent, TurnError } from './types';

/**
 * ACP v2's prompt lifecycle (draft alpha.17), as this client's turns: in v2 `session/prompt` answers once the
 * prompt is *accepted* (inserted into the conversation), and the turn's progress and end come as
 * `state_update` session updates (`running`, `requires_action`, `idle` with its stop reason). The thread model
 * and the session layer know v1 turns (a prompt, then `turn_end` when the prompt request answers): this tracker
 * turns the v2 signals into those events, so one thread model shows both. Built ahead of a v2 agent
 * (docs/acp-v2.md); pure, no wire.
 */

export type V2AgentState = 'idle' | 'running' | 'requires_action';

export type PromptPhase =
  /** Sent; the agent has not accepted it yet (it can still be refused with an error). */
  | 'sent'
  /** The prompt request answered: inserted into the conversation, the turn not over. */
  | 'accepted';

export interface LifecycleStep {
  /** Thread events to apply, in order (a `turn_end` when the agent went idle or refused the prompt). */
  events: ThreadEvent[];
}

const STOP_REASONS: ReadonlySet<string> = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

export class V2PromptLifecycle {
  /** The agent's own word on its foreground work (state_update), idle until it says otherwise. */
  state: V2AgentState = 'idle';
  private prompt: { promptId: string; phase: PromptPhase } | null = null;

  /** The prompt this client's turn is about, and how far it got. */
  get current(): { promptId: string; phase: PromptPhase } | null {
    return this.prompt;
  }

  /** The client sent `session/prompt`. */
  sent(promptId: string): void {
    this.prompt = { promptId, phase: 'sent' };
  }

  /** The prompt request answered. In v2 that is the acknowledgement: the turn goes on until `state_update` says idle. */
  answered(promptId: string): LifecycleStep {
    if (this.prompt?.promptId !== promptId) return { events: [] };
    this.prompt.phase = 'accepted';
    return { events: [] };
  }

  /** The prompt request failed: refused before it was accepted, so its turn ends with the error. */
  failed(promptId: string, error: TurnError): LifecycleStep {
    if (this.prompt?.promptId !== promptId) return { events: [] };
    this.prompt = null;
    return { events: [{ type: 'turn_end', promptId, stopReason: null, error: { code: error.code, message: error.message } }] };
  }

  /**
   * A `state_update`. `idle` ends the accepted prompt's turn with the agent's stop reason (unknown reasons:
   * none); an idle with no prompt of ours (agent-initiated work) ends a turn with no prompt id.
   */
  stateUpdate(u: Record<string, unknown>): LifecycleStep {
    const state = u.state;
    if (state === 'running' || state === 'requires_action') {
      this.state = state;
      return { events: [] };
    }
    if (state !== 'idle') return { events: [] };
    const wasBusy = this.state !== 'idle';
    this.state = 'idle';
    const stopReason = typeof u.stopReason === 'string' && STOP_REASONS.has(u.stopReason) ? (u.stopReason as StopReason) : null;
    const prompt = this.prompt;
    if (prompt && prompt.phase === 'accepted') {
      this.prompt = null;
      return { events: [{ type: 'turn_end', promptId: prompt.promptId, stopReason, error: null }] };
    }
    // An idle while our prompt is not yet accepted belongs to earlier work: the prompt's turn goes on.
    if (!prompt && wasBusy) return { events: [{ type: 'turn_end', promptId: null, stopReason, error: null }] };
    return { events: [] };
  }
}
