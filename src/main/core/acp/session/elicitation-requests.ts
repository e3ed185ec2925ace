import { randomUUID } from 'node:crypto';
import { RequestError, type CreateElicitationRequest, type CreateElicitationResponse } from '@agentclientprotocol/sdk';
import { IpcFailure } from '../../../../shared/contract';
import { contentErrors, parseElicitation, type ElicitationAction, type ElicitationContent, type ElicitationRequestView } from '../../../../shared/elicitation';
import type { AskingSession } from './asking-session';

interface PendingElicitation {
  request: ElicitationRequestView;
  /** The turn it was asked in (cancelled with it); null when asked between turns. */
  promptId: string | null;
  resolve: (response: CreateElicitationResponse) => void;
}

/** A live session's `elicitation/create` requests waiting for the user's answer. */
export class ElicitationRequests {
  private readonly pending = new Map<string, PendingElicitation>();

  constructor(private readonly session: AskingSession) {}

  get size(): number {
    return this.pending.size;
  }

  /**
   * `elicitation/create`: a request that does not fit what Switchboard can show (an unknown mode or field
   * type, a schema over its bounds, a URL that is not http(s)) is refused with -32602 and the reason.
   */
  create(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> | CreateElicitationResponse {
    const parsed = parseElicitation(params);
    if (!parsed.ok) {
      this.session.host.warn(this.session.agentId, this.session.id, 'invalid_update', `elicitation refused: ${parsed.message}`);
      throw RequestError.invalidParams(undefined, parsed.message);
    }
    if (this.session.turn()?.cancelled || this.session.closed()) return { action: 'cancel' };
    const requestId = randomUUID();
    return new Promise<CreateElicitationResponse>((resolve) => {
      this.pending.set(requestId, { request: parsed.value, promptId: this.session.turn()?.promptId ?? null, resolve });
      this.session.emit([{ event: { type: 'elicitation', requestId, request: parsed.value }, seq: null }]);
      this.session.waitForUser();
      // The agent withdrew the request ($/cancel_request) or the connection closed.
      signal.addEventListener('abort', () => this.resolve(requestId, 'cancel', null), { once: true });
    });
  }

  /** The user's answer; a form's content must fit its fields (else invalid_params, and it stays pending). */
  respond(requestId: string, action: ElicitationAction, content: ElicitationContent | undefined): void {
    const pending = this.pending.get(requestId);
    if (!pending) throw new IpcFailure('not_found', `no pending elicitation ${requestId} (it may have been answered or cancelled)`);
    if (action === 'accept' && pending.request.mode === 'form') {
      const errors = Object.entries(contentErrors(pending.request.form, content ?? {}));
      if (errors.length > 0) throw new IpcFailure('invalid_params', `the answer does not fit the form: ${errors.map(([k, v]) => `${k}: ${v}`).join(' ')}`);
    }
    this.resolve(requestId, action, action === 'accept' && pending.request.mode === 'form' ? (content ?? {}) : null);
  }

  private resolve(requestId: string, action: ElicitationAction, content: ElicitationContent | null): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    this.pending.delete(requestId);
    pending.resolve(content !== null ? { action: 'accept', content } : { action });
    this.session.emit([{ event: { type: 'elicitation_resolved', requestId, action, content }, seq: null }]);
    this.session.answered();
  }

  /** Pending elicitations of the turn `promptId` (all of them with `all`) are answered cancel. */
  cancel(promptId: string | null, all = false): void {
    for (const [id, p] of [...this.pending]) if (all || p.promptId === promptId) this.resolve(id, 'cancel', null);
  }

  complete(elicitationId: string): boolean {
    const known = this.session.thread().entries.some((e) => e.kind === 'elicitation' && e.request.mode === 'url' && e.request.elicitationId === elicitationId && !e.completed);
    if (known) this.session.emit([{ event: { type: 'elicitation_complete', elicitationId }, seq: null }]);
    return known;
  }
}
