import { IpcFailure } from '../../../../shared/contract';
import type { AgentStatus } from '../../../../shared/contract/agents';
import { MAX_RESTART_DELAY_SECONDS, SUPERVISOR_SETTINGS, type AgentExitInfo, type AgentMetrics, type SupervisorNumberSetting } from '../../../../shared/contract/supervisor';
import type { EventBus } from '../../base/event-bus';
import { systemClock, type Clock, type TimerHandle } from '../../base/clock';
import type { Disposable } from '../../base/lifecycle';
import { runtimeKey, type AgentRuntime } from '../runtimes/agent-runtime';
import type { LiveSession } from '../session/live-session';
import { reopenModeOf } from '../../agents/agent-capabilities';
import type { WarningKind } from '../connection/warnings';
import { CLOCK_TICKS_PER_SECOND, GroupSampler } from './process-metrics';
import { IdleSleep, type SleepHost } from './idle-sleep';
import type { SettingKey, SettingValue } from '../../../../shared/contract/settings';

/** What the supervisor needs from the runtime pool. */
export interface SupervisorHost extends SleepHost {
  /** Where agent.metrics go (the renderer). */
  readonly bus: EventBus;
  /** Tells when a process's state changes. */
  onStatus(listener: (status: AgentStatus) => void): Disposable;
  setting<K extends SettingKey>(key: K): SettingValue<K>;
  allRuntimes(): AgentRuntime[];
  runtimeByKey(key: string): AgentRuntime | undefined;
  /** The live sessions one process of an agent serves. */
  sessionsOf(rt: AgentRuntime): LiveSession[];
  /** Restarts one process of an agent and brings back its failed sessions. */
  restartRuntime(rt: AgentRuntime): Promise<unknown>;
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void;
}

export interface SupervisorOptions {
  /** How often processes are sampled and idle agents checked. */
  intervalMs: number;
  /** Time and timers: sampling, restart backoff, hang and idle timeouts. */
  clock: Clock;
}

interface Watched {
  metrics: AgentMetrics;
  /** Previous CPU sample (Linux): ticks and when. */
  cpu: { ticks: number; at: number; pid: number } | null;
  /** Crash times within the restart window. */
  crashes: number[];
  restartTimer: TimerHandle | null;
  /** The supervisor is restarting the agent right now (its status changes are not the user's doing). */
  restarting: boolean;
  lastState: AgentStatus['state'];
  idleSince: number | null;
  unresponsiveAt: number | null;
  changed: boolean;
  /** The figures last sent in agent.metrics (a sample within a rounding of them sends nothing). */
  sent: AgentMetrics | null;
  /** The agent's last activity (rt.lastActivity) at its last sample, and whether that sample showed anything new. */
  activityAt: number;
  quiet: boolean;
}

/**
 * With every agent quiet (its last sample showed nothing new, it has written nothing since, its flood state is
 * as shown), its processes are sampled every this many ticks instead of every tick: thirty idle sessions then
 * cost next to nothing.
 * Crashes do not wait for a sample (the process's exit says so), nor do hangs (each request has its timer).
 */
export const QUIET_SAMPLE_EVERY = 5;

const MiB = 1024 * 1024;

/** Whether a sample differs from what the user was last shown by more than its rounding (memory by 1 MiB or 1 %, CPU by a point). */
export function showsNew(sent: AgentMetrics | null, now: Pick<AgentMetrics, 'pid' | 'processes' | 'rssBytes' | 'cpuPercent' | 'throttled'>): boolean {
  if (!sent || sent.pid !== now.pid || sent.processes !== now.processes || sent.throttled !== now.throttled) return true;
  if ((sent.rssBytes === null) !== (now.rssBytes === null) || (sent.cpuPercent === null) !== (now.cpuPercent === null)) return true;
  if (sent.rssBytes !== null && now.rssBytes !== null && Math.abs(now.rssBytes - sent.rssBytes) >= Math.max(MiB, sent.rssBytes * 0.01)) return true;
  return sent.cpuPercent !== null && now.cpuPercent !== null && Math.abs(now.cpuPercent - sent.cpuPercent) >= 1;
}

const STDERR_TAIL_LINES = 20;

/** The last stderr lines of an agent log tail (lines look like `<ts> stderr <text>`). */
export function stderrTail(logText: string, lines = STDERR_TAIL_LINES): string {
  const out: string[] = [];
  for (const line of logText.split('\n')) {
    const m = /^\S+ stderr (.*)$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out.slice(-lines).join('\n').slice(-4000);
}

/** Delay before the n-th automatic restart (n from 1): base·2^(n−1), capped. */
export function backoffMs(n: number, baseMs: number, capMs = MAX_RESTART_DELAY_SECONDS * 1000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, n - 1));
}

const openSessions = (sessions: LiveSession[]) => sessions.filter((s) => s.status !== 'closed');

/**
 * Watches every agent process: samples memory and CPU of its process group, records how it ended,
 * restarts a crashed agent that has open sessions (with backoff, and not forever), stops agents with
 * no open session after the idle timeout, times out requests an agent leaves unanswered, and shows which
 * agents flood control reads slower (AgentRuntime's FloodGuard).
 */
export class AgentSupervisor implements Disposable {
  private readonly watched = new Map<string, Watched>();
  private readonly timer: TimerHandle;
  private readonly clock: Clock;
  private readonly unsubscribe: Disposable;
  private disposed = false;
  private sampling = false;
  /** Ticks since the processes were last sampled (see QUIET_SAMPLE_EVERY). */
  private sinceSample = 0;
  private readonly sampler = new GroupSampler();
  /** Idle agents stopped to give their memory back, their sessions asleep until used again. */
  readonly sleep: IdleSleep;

  constructor(
    private readonly host: SupervisorHost,
    options: Partial<SupervisorOptions> = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.sleep = new IdleSleep(host);
    this.unsubscribe = host.onStatus((status) => this.onStatus(status));
    this.timer = this.clock.setInterval(() => this.tick(), options.intervalMs ?? 1000);
  }

  // ───────────── settings ─────────────

  private num(name: SupervisorNumberSetting): number {
    return this.host.setting(SUPERVISOR_SETTINGS[name]);
  }

  /** How long a request may go unanswered while the agent writes nothing (0: no limit). */
  requestTimeoutMs(): number {
    return this.num('requestTimeoutSeconds') * 1000;
  }

  private idleStopMs(): number {
    return this.num('idleStopMinutes') * 60_000;
  }

  private autoRestart(): boolean {
    return this.host.setting(SUPERVISOR_SETTINGS.autoRestart);
  }

  // ───────────── state ─────────────

  /** What is watched of one process of an agent, by its runtime key (see runtimeKey). */
  private entry(key: string): Watched {
    let w = this.watched.get(key);
    if (!w) {
      const [agentId = key, folder = null] = key.split('\0');
      w = {
        metrics: {
          agentId,
          folder,
          pid: null,
          processes: 0,
          rssBytes: null,
          cpuPercent: null,
          sampledAt: this.clock.now(),
          restarts: 0,
          nextRestartAt: null,
          gaveUp: null,
          unresponsive: null,
          throttled: null,
          lastExit: null,
        },
        cpu: null,
        crashes: [],
        restartTimer: null,
        restarting: false,
        lastState: 'stopped',
        idleSince: null,
        unresponsiveAt: null,
        changed: true,
        sent: null,
        activityAt: 0,
        quiet: false,
      };
      this.watched.set(key, w);
    }
    return w;
  }

  metrics(): AgentMetrics[] {
    const ids = new Set([...this.host.allRuntimes().map((r) => r.key), ...this.watched.keys()]);
    return [...ids].map((id) => this.entry(id).metrics);
  }

  private update(key: string, patch: Partial<AgentMetrics>): void {
    const w = this.entry(key);
    w.metrics = { ...w.metrics, ...patch };
    w.changed = true;
  }

  private publish(): void {
    const changed = [...this.watched.values()].filter((w) => w.changed);
    if (changed.length === 0 || this.disposed) return;
    for (const w of changed) {
      w.changed = false;
      w.sent = w.metrics;
    }
    this.host.bus.emit('agent.metrics', { agents: changed.map((w) => w.metrics) });
  }

  private runtimeOf(key: string): AgentRuntime | undefined {
    return this.host.runtimeByKey(key);
  }

  private sessionsAt(key: string): LiveSession[] {
    const rt = this.runtimeOf(key);
    return rt ? openSessions(this.host.sessionsOf(rt)) : [];
  }

  // ───────────── exits and restarts ─────────────

  private onStatus(status: AgentStatus): void {
    if (this.disposed) return;
    const key = runtimeKey(status.agentId, status.folder ?? null, status.hostId);
    const w = this.entry(key);
    const prev = w.lastState;
    w.lastState = status.state;
    w.quiet = false;
    if (status.state === 'starting' && !w.restarting) {
      // Started by the user (or a new session): a fresh chance. A pending restart stays due: it then
      // only brings back the sessions still failed.
      if (w.metrics.gaveUp) this.update(key, { gaveUp: null });
      w.crashes = [];
      this.update(key, { restarts: 0 });
    }
    if (status.state === 'running') this.update(key, { pid: status.pid, unresponsive: null });
    if (status.state === 'stopped') {
      this.cancelRestart(w);
      this.update(key, { pid: null, processes: 0, rssBytes: null, cpuPercent: null, nextRestartAt: null, throttled: null });
    }
    const crashed = status.state === 'exited' || (status.state === 'failed' && prev === 'running');
    if (crashed) {
      this.recordExit(key, status.exitCode, status.signal);
      this.onCrash(key, status.error ?? 'the agent exited unexpectedly');
    }
    this.publish();
  }

  private recordExit(key: string, code: number | null, signal: string | null): void {
    const rt = this.runtimeOf(key);
    let tail = '';
    try {
      tail = rt ? stderrTail(rt.log.tail(64 * 1024).text) : '';
    } catch {
      /* log unreadable */
    }
    const lastExit: AgentExitInfo = { code, signal, stderrTail: tail, at: this.clock.now() };
    this.update(key, { lastExit, pid: null, processes: 0, rssBytes: null, cpuPercent: null, throttled: null });
    this.entry(key).cpu = null;
  }

  private cancelRestart(w: Watched): void {
    w.restartTimer?.cancel();
    w.restartTimer = null;
    if (w.metrics.nextRestartAt !== null) {
      w.metrics = { ...w.metrics, nextRestartAt: null };
      w.changed = true;
    }
  }

  private tellSessions(key: string, message: string): void {
    for (const s of this.sessionsAt(key)) s.explainFailure(message);
  }

  /** The agent died (or failed to come back): restart it later, or give up on an exit loop. */
  private onCrash(key: string, why: string): void {
    const w = this.entry(key);
    if (this.disposed || w.restartTimer) return;
    if (!this.autoRestart() || this.sessionsAt(key).length === 0) return;
    const now = this.clock.now();
    const windowMs = this.num('restartWindowMinutes') * 60_000;
    const max = Math.floor(this.num('maxRestarts'));
    w.crashes = [...w.crashes.filter((t) => now - t < windowMs), now];
    const attempt = w.crashes.length;
    if (attempt > max) {
      const minutes = Math.round((windowMs / 60_000) * 10) / 10;
      const message =
        `${why}. It ended ${attempt} times within ${minutes} min, so Switchboard stopped restarting it. ` +
        `Check its log (stderr below), fix it, then restart it.`;
      w.crashes = [];
      this.update(key, { gaveUp: message, nextRestartAt: null, restarts: 0 });
      this.tellSessions(key, message);
      this.runtimeOf(key)?.log.write('note', `automatic restarts stopped: ${attempt} exits within ${minutes} min`);
      return;
    }
    const delay = backoffMs(attempt, this.num('restartDelaySeconds') * 1000);
    this.update(key, { nextRestartAt: now + delay, restarts: attempt });
    this.tellSessions(key, `${why}; restarting it in ${Math.max(1, Math.round(delay / 1000))} s (attempt ${attempt} of ${max})`);
    w.restartTimer = this.clock.setTimeout(() => void this.restart(key), delay);
  }

  private async restart(key: string): Promise<void> {
    const w = this.entry(key);
    w.restartTimer = null;
    this.update(key, { nextRestartAt: null });
    if (this.disposed || this.sessionsAt(key).length === 0) {
      this.publish();
      return;
    }
    w.restarting = true;
    try {
      const rt = this.runtimeOf(key);
      if (rt && (rt.connected || rt.state === 'starting')) {
        // Someone started it meanwhile (a new session, the user): only the sessions are missing.
        await rt.ensureStarted();
        for (const s of this.sessionsAt(key)) if (s.status === 'failed') await s.reopen();
      } else if (rt) {
        await this.host.restartRuntime(rt);
      }
      const after = this.runtimeOf(key);
      if (after?.connected && !reopenModeOf(after.capabilities)) {
        for (const s of this.sessionsAt(key)) {
          s.explainFailure(
            'the agent exited unexpectedly; it was restarted, but it cannot resume this session — start a new session in this folder (the conversation is kept in History)',
          );
        }
      }
    } catch (e) {
      // It died during start-up: that counts as another crash.
      w.restarting = false;
      this.recordExit(key, this.runtimeOf(key)?.exitCode ?? null, this.runtimeOf(key)?.signal ?? null);
      this.onCrash(key, (e as Error).message);
    } finally {
      w.restarting = false;
      this.publish();
    }
  }

  // ───────────── hangs ─────────────

  /**
   * Runs an agent request with the hang timeout: it fails when the agent neither answers nor writes
   * anything for `requestTimeoutMs` (time the agent spends waiting on this client, e.g. for a permission,
   * does not count, nor does a turn's tool call in progress, nor time its host is out of reach). The agent is
   * asked to cancel it (now, or not at all), and flagged unresponsive.
   */
  watch<R>(rt: AgentRuntime, method: string, params: unknown, send: (signal: AbortSignal) => Promise<R>): Promise<R> {
    if (method === 'initialize' || method === 'authenticate') return send(new AbortController().signal);
    const timeoutMs = this.requestTimeoutMs();
    if (timeoutMs <= 0) return send(new AbortController().signal);
    const abort = new AbortController();
    const started = this.clock.now();
    const acpSessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    const toolRunning = () => {
      try {
        return rt.sessionFor(acpSessionId).toolInProgress();
      } catch {
        return false;
      }
    };
    return new Promise<R>((resolve, reject) => {
      let lastSeen = started;
      let lastCheck = started;
      const check = this.clock.setInterval(
        () => {
          const now = this.clock.now();
          // Only time the agent could have answered counts: while its host is out of reach (an SSH host
          // reconnecting; the agent lives on there), the clock stands still.
          if (!rt.hostReachable()) lastSeen = Math.min(now, lastSeen + (now - lastCheck));
          lastCheck = now;
          if (rt.waitingOnClient) lastSeen = now;
          // A turn whose tool call is still running may rightly be quiet for long (a slow build).
          if (method === 'session/prompt' && toolRunning()) lastSeen = now;
          lastSeen = Math.max(lastSeen, rt.lastActivity);
          if (now - lastSeen < timeoutMs) return;
          check.cancel();
          const seconds = Math.round((timeoutMs / 1000) * 10) / 10;
          const message = `the agent did not answer ${method} within ${seconds} s and wrote nothing meanwhile; it may be stuck — restart it if it does not recover`;
          abort.abort();
          // Switchboard's own cancel, not the user's: dropped rather than delivered after a reconnect.
          if (method === 'session/prompt' && typeof acpSessionId === 'string') rt.notifyNowOrNever('session/cancel', { sessionId: acpSessionId });
          this.markUnresponsive(rt, message);
          reject(new IpcFailure('agent_error', message));
        },
        Math.max(50, Math.min(1000, timeoutMs / 4)),
      );
      send(abort.signal).then(
        (v) => {
          check.cancel();
          resolve(v);
        },
        (e: unknown) => {
          check.cancel();
          reject(e);
        },
      );
    });
  }

  private markUnresponsive(rt: AgentRuntime, message: string): void {
    const w = this.entry(rt.key);
    w.unresponsiveAt = this.clock.now();
    this.update(rt.key, { unresponsive: message });
    this.host.warn(rt.agentId, null, 'unresponsive', message);
    this.publish();
  }

  // ───────────── sampling and idle stop ─────────────

  private async tick(): Promise<void> {
    if (this.sampling || this.disposed) return;
    this.sampling = true;
    try {
      const now = this.clock.now();
      const runtimes = this.host.allRuntimes();
      const running = runtimes.filter((r) => r.connected && r.pid !== null);
      const quiet = running.every((rt) => {
        const w = this.entry(rt.key);
        return w.quiet && w.cpu?.pid === rt.pid && rt.lastActivity === w.activityAt && rt.throttled === w.metrics.throttled;
      });
      const due = !quiet || ++this.sinceSample >= QUIET_SAMPLE_EVERY;
      if (due) this.sinceSample = 0;
      const samples = due ? await this.sampler.sample(running.map((r) => r.pid!)) : new Map<number, never>();
      for (const rt of running) {
        const w = this.entry(rt.key);
        if (w.unresponsiveAt !== null && rt.lastActivity > w.unresponsiveAt) {
          w.unresponsiveAt = null;
          this.update(rt.key, { unresponsive: null });
        }
        const pid = rt.pid!;
        const s = samples.get(pid);
        if (!s) continue;
        let cpuPercent = s.cpuPercent;
        if (s.cpuTicks !== null) {
          const at = this.clock.now();
          if (w.cpu && w.cpu.pid === pid && at > w.cpu.at) {
            const used = Math.max(0, s.cpuTicks - w.cpu.ticks) / CLOCK_TICKS_PER_SECOND;
            cpuPercent = Math.round((used / ((at - w.cpu.at) / 1000)) * 1000) / 10;
          }
          w.cpu = { ticks: s.cpuTicks, at, pid };
        }
        const sample = { pid, processes: s.pids.length, rssBytes: s.pids.length > 0 ? s.rssBytes : null, cpuPercent, throttled: rt.throttled };
        // An idle agent's figures barely move from one sample to the next: the event (and the renderer's work)
        // only when the user would see a difference; agents.metrics still answers with the latest sample.
        const news = showsNew(w.sent, sample);
        w.metrics = { ...w.metrics, ...sample, sampledAt: now };
        if (news) w.changed = true;
        w.quiet = !news && !w.changed;
        w.activityAt = rt.lastActivity;
      }
      // The setting is read (from the store) only when some agent has no open session.
      let idleMs: number | undefined;
      for (const rt of runtimes) {
        const w = this.entry(rt.key);
        // An agent whose host is out of reach is not stopped meanwhile (the stop would be delivered on reconnect).
        if (!rt.connected || !rt.hostReachable() || openSessions(this.host.sessionsOf(rt)).length > 0 || (idleMs ??= this.idleStopMs()) <= 0) {
          w.idleSince = null;
          continue;
        }
        w.idleSince ??= now;
        if (now - w.idleSince >= idleMs) {
          w.idleSince = null;
          rt.log.write('note', `stopping: no open session for ${Math.round(idleMs / 1000)} s`);
          void rt.stop().catch(() => {});
        }
      }
      if (running.length > 0) {
        const budgetBytes = this.num('memoryBudgetMb') * 1024 * 1024;
        this.sleep.tick(now, running, this.num('sleepIdleMinutes') * 60_000, budgetBytes, (rt) => this.entry(rt.key).metrics.rssBytes);
      }
      this.publish();
    } finally {
      this.sampling = false;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.timer.cancel();
    for (const w of this.watched.values()) w.restartTimer?.cancel();
    void this.unsubscribe.dispose();
  }
}
