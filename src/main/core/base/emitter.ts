import { toDisposable, type Disposable } from './lifecycle';

/** An in-process event of one service (not forwarded to the renderer: that is the EventBus). */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** Subscribes; dispose the result to unsubscribe. */
  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.add(listener);
    return toDisposable(() => void this.listeners.delete(listener));
  };

  /** Tells every listener; one that throws is reported and does not stop the others. */
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (e) {
        console.error('event listener failed:', e);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
