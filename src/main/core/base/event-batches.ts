import type { EventName } from '../../../shared/contract';
import type { EventBus } from './event-bus';
import type { Disposable } from './lifecycle';

export interface EventBatches extends Disposable {
  /** Sends what is queued now (call before a request's result: its events go first). */
  flush(): void;
}

/**
 * The bus's events of one event-loop turn, handed to `send` together: a transport message costs far more
 * than a small event, and ten streaming agents emit thousands a second. `encode` turns each event into what
 * the transport carries (a JSON text for the WebSocket, the object itself for Electron IPC); `wanted` says
 * whether anyone listens (events with no receiver are not kept).
 */
export function batchEvents<T>(bus: EventBus, encode: (name: EventName, payload: unknown) => T, send: (batch: T[]) => void, wanted: () => boolean = () => true): EventBatches {
  let queued: T[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    send(batch);
  };
  const link = bus.connect((name, payload) => {
    if (!wanted()) return;
    queued.push(encode(name, payload));
    scheduled ??= setImmediate(flush);
  });
  return {
    flush,
    dispose() {
      link.dispose();
      if (scheduled) clearImmediate(scheduled);
      scheduled = null;
      queued = [];
    },
  };
}
