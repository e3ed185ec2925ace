import { randomUUID } from 'node:crypto';
import { MAX_SUBAGENTS, type SubagentEntry } from '../../../../shared/acp-thread';
import type { SessionHost } from './session-host';
import type { LiveSession } from './live-session';
import type { LiveSessions } from './live-sessions';

/** What a delegated session closed with its parent says of why. */
export const ENDED_WITH_PARENT = 'It ended because its parent session was closed.';

/** How deep children may nest (a child of a child of a child…); deeper announcements are refused. */
export const MAX_SUBAGENT_DEPTH = 3;

/**
 * ACP subagent sessions: children the agent starts under a live session, on the same connection. Each is a
 * Switchboard session of its own (a row linked to its parent, its messages logged and indexed like any
 * session's), fed by the agent's updates naming its id; its parent's `subagent_update`s say what it is and
 * whether it works. It takes no prompts; it is cancelled only when the agent allows it.
 */
export class SubagentSessions {
  constructor(
    private readonly live: LiveSessions,
    private readonly host: SessionHost,
    private readonly create: (id: string, parent: LiveSession) => LiveSession,
  ) {}

  childrenOf(parentId: string): LiveSession[] {
    return this.live.all().filter((s) => s.subagent?.parentId === parentId);
  }

  private depthOf(session: LiveSession): number {
    let depth = 0;
    for (let s: LiveSession | undefined = session; s?.subagent; s = this.live.get(s.subagent.parentId)) depth++;
    return depth;
  }

  /** The parent announced the child `acpId`: opened and linked now (its Switchboard id), or refused (undefined). */
  open(parentId: string, acpId: string): string | undefined {
    const parent = this.live.get(parentId);
    if (!parent || parent.status === 'closed' || acpId.length > 200) return undefined;
    const refuse = (why: string) => {
      this.host.warn(parent.agentId, parent.id, 'invalid_update', `subagent session ${acpId.slice(0, 100)} not shown: ${why}`);
      return undefined;
    };
    if (this.childrenOf(parentId).length >= MAX_SUBAGENTS) return refuse(`a session shows at most ${MAX_SUBAGENTS} subagents`);
    if (this.depthOf(parent) >= MAX_SUBAGENT_DEPTH) return refuse(`subagents nest at most ${MAX_SUBAGENT_DEPTH} deep`);
    const id = randomUUID();
    try {
      this.host.rows().insertSubagent({ id, parentId, acpSessionId: acpId, agentId: parent.agentId, hostId: parent.runtime.hostId, cwd: parent.cwd, now: Date.now() });
    } catch (e) {
      return refuse(`the store refused it (${(e as Error).message})`);
    }
    const child = this.create(id, parent);
    child.attachAsChild(parentId, acpId);
    this.live.add(child);
    this.host.bus.emit('session.state', child.info());
    return id;
  }

  /** The parent folded a `subagent_update` of its child: the child's status, title and cancel follow it. */
  updated(parentId: string, entry: SubagentEntry): void {
    const child = this.childrenOf(parentId).find((s) => s.acpSessionId === entry.childId);
    child?.subagentChanged(entry);
  }

  /**
   * The parent's turn was cancelled, or the parent closed: its children are shown ended (closed with it). The
   * sessions it delegated to are stopped the same way: their turn cancelled (and their queue of its follow-ups
   * cleared), or closed with it, saying why.
   */
  async end(parentId: string, how: 'cancel' | 'close', tellAgent = true): Promise<void> {
    for (const child of this.childrenOf(parentId)) {
      if (how === 'close') await child.close(false);
      else child.endedByParent();
    }
    for (const child of this.live.all().filter((s) => s.delegatedBy === parentId && s.status !== 'closed')) {
      if (how === 'close') await child.close(tellAgent, ENDED_WITH_PARENT).catch(() => {});
      else child.cancel(true);
    }
  }
}
