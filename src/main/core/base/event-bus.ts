import type { EventName, PayloadOf } from '../../../shared/contract';
import { toDisposable, type Disposable } from './lifecycle';

export type EventSink = (name: EventName, payload: unknown) => void;

/** Events from services to every connected renderer (Electron window or WebSocket clients). */
export class EventBus {
  private readonly sinks = new Set<EventSink>();

  emit<N extends EventName>(name: N, payload: PayloadOf<N>): void {
    for (const sink of this.sinks) {
      try {
        sink(name, payload);
      } catch (e) {
        console.error(`event sink failed for ${name}:`, e);
      }
    }
  }

  connect(sink: EventSink): Disposable {
    this.sinks.add(sink);
    return toDisposable(() => void this.sinks.delete(sink));
  }
}
