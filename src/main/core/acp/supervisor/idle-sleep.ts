import { reopenModeOf } from '../../agents/agent-capabilities';
import type { EventBus } from '../../base/event-bus';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { LiveSession } from '../session/live-session';

/** What idle sleep needs from the runtime pool. */
export interface SleepHost {
  readonly bus: EventBus;
  /** The live sessions one process of an agent serves. */
  sessionsOf(rt: AgentRuntime): LiveSession[];
  allSessions(): LiveSession[];
  session(id: string): LiveSession | undefined;
  /** One of the session's terminals still runs. */
  terminalRunning(sessionId: string): boolean;
}

/** How long each agent process has been quiet, and what it looked like then. */
interface Quiet {
  since: number;
  /** The agent's last output and its sessions' states: any change is use. */
  signature: string;
}

const open = (sessions: LiveSession[]) => sessions.filter((s) => s.status !== 'closed');

const STILL: ReadonlySet<string> = new Set(['idle', 'closed', 'failed']);

/**
 * Idle agents give their memory back: an agent process whose sessions have all been idle for the set time (or the
 * least recently used ones, when the agents together pass the memory budget) is stopped, its sessions left open and
 * marked asleep. The next prompt, or a look at the tab, starts it again and brings that session back
 * (session/resume, else session/load, as after a crash: LiveSession.reopen), its thread as it was.
 *
 * Never put to sleep: an agent that can neither resume nor load sessions, one with a turn running, a question for
 * the user pending, a terminal running, a subagent or delegated child still working, a request of its own waiting
 * on Switchboard, a session not yet or no longer live, or whose host is out of reach.
 */
export class IdleSleep {
  private readonly quiet = new Map<string, Quiet>();
  private readonly stopping = new Map<string, Promise<void>>();
  private readonly waking = new Map<string, Promise<void>>();

  constructor(private readonly host: SleepHost) {}

  /** Why this agent process may not be put to sleep now; null when it may. */
  blocker(rt: AgentRuntime): string | null {
    if (!rt.connected || rt.pid === null) return 'not running as a process here';
    if (!rt.hostReachable()) return 'its host is out of reach';
    if (!reopenModeOf(rt.capabilities)) return 'it can neither resume nor load sessions';
    if (rt.waitingOnClient) return 'it waits on Switchboard';
    const sessions = open(this.host.sessionsOf(rt));
    const awake = sessions.filter((s) => !s.asleep);
    if (awake.length === 0) return 'no open session awake';
    for (const s of sessions) {
      if (s.status !== 'idle' || s.queueItems().length > 0) return `a session is ${s.status}`;
      if (s.acpSessionId === null) return 'a session is not created yet';
      if (this.host.terminalRunning(s.id)) return 'a terminal runs';
    }
    const ids = new Set(sessions.map((s) => s.id));
    const child = this.host.allSessions().find((c) => (ids.has(c.subagent?.parentId ?? '') || ids.has(c.delegatedBy ?? '')) && !STILL.has(c.status));
    if (child) return 'a child session is working';
    return null;
  }

  private signature(rt: AgentRuntime): string {
    return `${rt.lastActivity}|${this.host
      .sessionsOf(rt)
      .map((s) => `${s.id}:${s.status}:${s.updatedAt}:${s.asleep ?? ''}`)
      .join(',')}`;
  }

  /**
   * One supervisor tick: puts to sleep the processes idle for `idleMs` (0: never), then, while the agents' memory
   * (`rssOf`, bytes) passes `budgetBytes` (0: no budget), the idle ones least recently used first.
   */
  tick(now: number, runtimes: AgentRuntime[], idleMs: number, budgetBytes: number, rssOf: (rt: AgentRuntime) => number | null): void {
    const idle: Array<{ rt: AgentRuntime; since: number }> = [];
    for (const rt of runtimes) {
      if (this.stopping.has(rt.key) || this.blocker(rt) !== null) {
        this.quiet.delete(rt.key);
        continue;
      }
      const signature = this.signature(rt);
      let q = this.quiet.get(rt.key);
      if (!q || q.signature !== signature) this.quiet.set(rt.key, (q = { since: now, signature }));
      idle.push({ rt, since: q.since });
    }
    const asleep = new Set<string>();
    for (const { rt, since } of idle) {
      if (idleMs > 0 && now - since >= idleMs) {
        asleep.add(rt.key);
        this.sleep(rt, `its sessions were idle for ${Math.round((now - since) / 1000)} s`);
      }
    }
    if (budgetBytes <= 0) return;
    let total = 0;
    for (const rt of runtimes) if (!asleep.has(rt.key) && !this.stopping.has(rt.key)) total += rssOf(rt) ?? 0;
    for (const { rt } of idle.filter((x) => !asleep.has(x.rt.key)).sort((a, b) => a.since - b.since)) {
      if (total <= budgetBytes) break;
      const mb = (b: number) => Math.round(b / 1024 ** 2);
      this.sleep(rt, `the agents took ${mb(total)} MB, over the ${mb(budgetBytes)} MB budget, and it was the least recently used idle one`);
      total -= rssOf(rt) ?? 0;
    }
  }

  /** Stops the agent process, its open sessions left open and asleep. */
  sleep(rt: AgentRuntime, why: string): Promise<void> {
    const pending = this.stopping.get(rt.key);
    if (pending) return pending;
    this.quiet.delete(rt.key);
    for (const s of open(this.host.sessionsOf(rt))) {
      if (s.asleep) continue;
      s.asleep = 'asleep';
      this.host.bus.emit('session.state', s.info());
    }
    rt.log.write('note', `stopping to give its memory back (its sessions come back on their next prompt): ${why}`);
    const done = rt
      .stop()
      .catch(() => {})
      .finally(() => this.stopping.delete(rt.key));
    this.stopping.set(rt.key, done);
    return done;
  }

  /** Brings an asleep session back: its agent started again, the session resumed (or loaded); resolves when it is live or failed. */
  wake(sessionId: string): Promise<void> {
    const s = this.host.session(sessionId);
    if (!s?.asleep) return this.waking.get(sessionId) ?? Promise.resolve();
    let p = this.waking.get(sessionId);
    if (!p) {
      p = this.bringBack(s).finally(() => this.waking.delete(sessionId));
      this.waking.set(sessionId, p);
    }
    return p;
  }

  private async bringBack(s: LiveSession): Promise<void> {
    const rt = s.runtime;
    this.mark(s, 'waking');
    await this.stopping.get(rt.key);
    try {
      await rt.ensureStarted();
    } catch (e) {
      this.mark(s, null);
      s.onAgentGone(`the agent, stopped while idle, could not be started again: ${(e as Error).message}`);
      return;
    }
    // Its subagent children are not opened again (the agent knows them through their parent): routed to them again.
    for (const c of this.host.sessionsOf(rt)) {
      if (c.subagent?.parentId !== s.id || !c.asleep) continue;
      if (c.acpSessionId) rt.bind(c.acpSessionId, c.id);
      this.mark(c, null);
    }
    const back = s.subagent ? (s.acpSessionId !== null && rt.bind(s.acpSessionId, s.id)) : await s.reopen();
    if (!s.asleep) return;
    this.mark(s, null);
    if (!back && s.status !== 'closed' && s.status !== 'failed') {
      s.onAgentGone('the agent was started again but could not bring this session back (it no longer resumes or loads sessions)');
    }
  }

  private mark(s: LiveSession, asleep: LiveSession['asleep']): void {
    s.asleep = asleep;
    if (s.status !== 'closed') this.host.bus.emit('session.state', s.info());
  }

  forget(key: string): void {
    this.quiet.delete(key);
  }
}
