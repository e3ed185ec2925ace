/** At most this much of updates for sessions not bound yet is held, in all (the rest is dropped, as before). */
const MAX_HELD_BYTES = 8 * 1024 * 1024;
/** At most this many sessions' updates are held at once. */
const MAX_HELD_SESSIONS = 64;

/**
 * `session/update` lines an agent sent for an ACP session no live session is bound to yet, kept by that session's
 * id until one is. An agent process a previous Switchboard left on an SSH host (killed mid-reply) is taken
 * back by the next one, and what it wrote meanwhile comes first, before any session is opened again: it is the
 * rest of that session's conversation, handed to the session once it is reopened (resumed or loaded).
 * Bounded: what the agent sends is untrusted.
 */
export class HeldUpdates {
  private readonly bySession = new Map<string, string[]>();
  private bytes = 0;

  /** Keeps a line for `acpSessionId`; false when the bounds are reached (the line is not kept). */
  keep(acpSessionId: string, line: string): boolean {
    const lines = this.bySession.get(acpSessionId);
    if (!lines && this.bySession.size >= MAX_HELD_SESSIONS) return false;
    if (this.bytes + line.length > MAX_HELD_BYTES) return false;
    this.bytes += line.length;
    if (lines) lines.push(line);
    else this.bySession.set(acpSessionId, [line]);
    return true;
  }

  /** The lines held for `acpSessionId`, in the order they came, now no longer held. */
  take(acpSessionId: string): string[] {
    const lines = this.bySession.get(acpSessionId) ?? [];
    this.bySession.delete(acpSessionId);
    for (const l of lines) this.bytes -= l.length;
    return lines;
  }

  clear(): void {
    this.bySession.clear();
    this.bytes = 0;
  }
}

/**
 * What of `held` the session's store does not hold yet: a killed Switchboard stored lines it had not yet
 * acknowledged to the host, which the host then sends again. The longest run of `held`'s first lines that is
 * the same as the stored lines' last ones is left out.
 */
export function notStoredYet(stored: readonly string[], held: readonly string[]): string[] {
  for (let k = Math.min(stored.length, held.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = stored[stored.length - k + i] === held[i];
    if (same) return held.slice(k);
  }
  return [...held];
}
