/**
 * The refs of the entries of sessions the index has written every entry of (sessions it met with none), so that
 * looking one up does not ask SQLite. An import's index pass asked it about 1.5 times per entry (a tool call's
 * updates, a message's chunks), nearly always for a ref that was not there yet: 300,000 queries for 200 MB.
 * Kept during a catch-up only (the index is its sessions' only writer then), and dropped at the first failure, as a
 * transaction that rolls back would leave refs here that are not in the store.
 */

/** Sessions kept, least recently used dropped first. */
const MAX_SESSIONS = 256;
/** Refs one session may have here; beyond, its lookups go to the store again. */
const MAX_REFS = 100_000;

export class KnownRefs {
  private readonly sessions = new Map<string, Map<string, number>>();

  /** Every entry of `sessionId` is known here: none yet (called when the store has none for it). */
  start(sessionId: string): void {
    this.sessions.set(sessionId, new Map());
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
  }

  /**
   * The id of the session's latest entry of `kind` with `ref`: a number, none (null), or not known here
   * (undefined: ask the store).
   */
  find(sessionId: string, kind: string, ref: string): number | null | undefined {
    const refs = this.sessions.get(sessionId);
    return refs ? (refs.get(`${kind}\0${ref}`) ?? null) : undefined;
  }

  /** An entry was created (in a transaction that is to commit). */
  add(sessionId: string, kind: string, ref: string, id: number): void {
    const refs = this.sessions.get(sessionId);
    if (!refs) return;
    refs.set(`${kind}\0${ref}`, id);
    if (refs.size > MAX_REFS) this.sessions.delete(sessionId);
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  clear(): void {
    this.sessions.clear();
  }
}
