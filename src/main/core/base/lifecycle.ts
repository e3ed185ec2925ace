/** Anything holding a resource (process, file, socket, listener) is a Disposable. */
export interface Disposable {
  dispose(): void | Promise<void>;
}

export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      void item.dispose();
    } else {
      this.items.push(item);
    }
    return item;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // Reverse order: what was created last depends on what was created first.
    for (const item of this.items.reverse()) {
      try {
        await item.dispose();
      } catch (e) {
        console.error('dispose failed:', e);
      }
    }
    this.items.length = 0;
  }
}

export const toDisposable = (fn: () => void | Promise<void>): Disposable => ({ dispose: fn });
