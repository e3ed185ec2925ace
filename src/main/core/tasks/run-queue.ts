import { randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { ContainerChoice } from '../../../shared/contract/containers';
import type { Pause, TaskInput, TaskRun } from '../../../shared/contract/tasks';
import type { Clock } from '../base/clock';
import type { Disposable } from '../base/lifecycle';
import { allowanceOf, specOf, type RunRow, type TaskStore } from './task-store';

/** What runs need of the sessions: start one, prompt it, cancel its turn, hear its turns end. */
export interface TaskSessions {
  create(p: { agentId: string; cwd: string; hostId?: string; container?: ContainerChoice }): Promise<{ id: string }>;
  prompt(sessionId: string, text: string): Promise<unknown>;
  /** Cancels the turn in flight (session/cancel) and the prompts queued behind it. */
  cancel(sessionId: string): void;
  onTurnEnded(listener: (turn: { sessionId: string; stopReason: string | null; error: { message: string } | null }) => void): Disposable;
  /** The agent's last message in the session (null: none). */
  lastMessage(sessionId: string): string | null;
}

/** A new worktree of the repository that holds `folder`, on a new branch named for the task. */
export interface TaskWorktrees {
  create(folder: string, name: string): Promise<{ path: string; branch: string }>;
}

export interface RunQueueOptions {
  store: TaskStore;
  clock: Clock;
  sessions: TaskSessions;
  worktrees: TaskWorktrees;
  concurrency(): number;
  /** Why a queued run may not start now (a daily limit reached), or null. */
  holdReason(row: RunRow): string | null;
  /** A run changed (stored already). */
  changed(row: RunRow): void;
  /** A run's session started: the guard watches it from now. */
  started(row: RunRow): void;
  /** A run ended or paused: the guard stops its clock. */
  stopped(row: RunRow): void;
}

const MAX_LAST_MESSAGE = 4000;
const CONTINUE_PROMPT = 'Continue where you stopped.';

/**
 * The runs of tasks: a queue in the user's order that starts runs while fewer than the concurrency limit run,
 * each run's prompts one after another in its session, and its end (in the Inbox). A paused run (the spend
 * guard) frees its slot and is fed nothing until the user continues or stops it.
 */
export class RunQueue implements Disposable {
  private held = false;
  private readonly turnLink: Disposable;

  constructor(private readonly o: RunQueueOptions) {
    this.turnLink = o.sessions.onTurnEnded((t) => this.turnEnded(t.sessionId, t.stopReason, t.error?.message ?? null));
  }

  get paused(): boolean {
    return this.held;
  }

  /** Runs that were running when the app last quit lost their session: they end, failed, in the Inbox. */
  recover(): void {
    for (const row of this.o.store.runsIn('running')) {
      if (row.trig === 'session') this.o.store.updateRun(row.id, { state: 'done', ended_at: this.o.clock.now() });
      else this.end(row, 'failed', { error: 'Switchboard quit while the run was going' });
    }
  }

  /** Queues a run; a 'session' run (an interactive session that opted in to the guard) is running from the start. */
  enqueue(taskId: string | null, name: string, spec: TaskInput, trigger: TaskRun['trigger'], sessionId: string | null = null): RunRow {
    const now = this.o.clock.now();
    const guardOnly = trigger === 'session';
    const row: RunRow = {
      id: randomUUID(),
      task_id: taskId,
      name,
      agent_id: spec.agentId,
      spec: JSON.stringify(spec),
      state: guardOnly ? 'running' : 'queued',
      trig: trigger,
      position: this.o.store.nextPosition(),
      session_id: sessionId,
      folder: spec.folder,
      worktree: null,
      branch: null,
      queued_at: now,
      started_at: guardOnly ? now : null,
      ended_at: null,
      stop_reason: null,
      error: null,
      prompts_sent: 0,
      tokens: 0,
      money: 0,
      money_source: 'none',
      pause: null,
      allowance: '{}',
      last_message: null,
      inbox: 'none',
      hold_reason: null,
      answers: '[]',
    };
    this.o.store.insertRun(row);
    this.o.changed(row);
    if (!guardOnly) this.pump();
    return this.o.store.run(row.id)!;
  }

  /** Starts queued runs while slots are free (in queue order); runs a daily limit holds wait, said why. */
  pump(): void {
    if (this.held) return;
    let free = this.o.concurrency() - this.o.store.runsIn('running').filter((r) => r.trig !== 'session').length;
    for (const row of this.o.store.runsIn('queued', 'held')) {
      if (free <= 0) break;
      const hold = this.o.holdReason(row);
      if (hold) {
        if (row.state !== 'held' || row.hold_reason !== hold) this.update(row, { state: 'held', hold_reason: hold });
        continue;
      }
      free--;
      const started = this.update(row, { state: 'running', hold_reason: null, started_at: this.o.clock.now() });
      void this.start(started);
    }
  }

  setPaused(paused: boolean): void {
    this.held = paused;
    if (!paused) this.pump();
  }

  /** Moves a waiting run before another (null: to the end). */
  move(runId: string, before: string | null): void {
    const row = this.waiting(runId);
    const waiting = this.o.store.runsIn('queued', 'held').filter((r) => r.id !== row.id);
    const at = before === null ? waiting.length : waiting.findIndex((r) => r.id === before);
    if (at < 0) throw new IpcFailure('not_found', `no queued run ${before}`);
    const prev = waiting[at - 1]?.position;
    const next = waiting[at]?.position;
    const position = next === undefined ? this.o.store.nextPosition() : prev === undefined ? next - 1 : (prev + next) / 2;
    this.update(row, { position });
    this.pump();
  }

  cancel(runId: string): void {
    const row = this.get(runId);
    if (row.state === 'queued' || row.state === 'held') {
      this.update(row, { state: 'cancelled', ended_at: this.o.clock.now(), hold_reason: null });
      return;
    }
    if (row.state !== 'running' && row.state !== 'paused') throw new IpcFailure('conflict', `the run has ended (${row.state})`);
    this.end(row, 'cancelled', { stopReason: 'cancelled' });
    if (row.session_id && row.state === 'running') this.o.sessions.cancel(row.session_id);
  }

  /** The guard: the run stops where it is (its turn cancelled) and waits for the user; its slot frees. */
  pause(row: RunRow, pause: Pause): RunRow {
    const paused = this.update(row, { state: 'paused', pause: JSON.stringify(pause), inbox: 'open' });
    this.o.stopped(paused);
    if (row.session_id) this.o.sessions.cancel(row.session_id);
    this.pump();
    return paused;
  }

  /**
   * Continue with +X: the crossed limit allows `more` beyond what is spent now (`spentNow`: what the agent spent
   * until its cancelled turn ended counts too), and the run goes on (a task's run: with a prompt).
   */
  continue(runId: string, more: number, spentNow: (row: RunRow, limit: Pause['limit']) => number, prompt?: string): RunRow {
    const row = this.get(runId);
    const pause = row.state === 'paused' ? (JSON.parse(row.pause ?? 'null') as Pause | null) : null;
    if (!pause) throw new IpcFailure('conflict', 'the run is not paused by its limits');
    const allowance = allowanceOf(row);
    const base = pause.allowed - (allowance[pause.limit] ?? 0);
    allowance[pause.limit] = Math.max(pause.allowed, spentNow(row, pause.limit)) + more - base;
    const resumed = this.update(row, { state: 'running', pause: null, allowance: JSON.stringify(allowance), inbox: row.trig === 'session' ? 'none' : 'continued' });
    this.o.started(resumed);
    const text = prompt?.trim() || (row.trig === 'session' ? '' : CONTINUE_PROMPT);
    if (text && row.session_id) void this.o.sessions.prompt(row.session_id, text).catch((e: unknown) => this.end(this.get(runId), 'failed', { error: (e as Error).message }));
    return resumed;
  }

  /** Stop: a paused run ends there, cancelled, with what it did kept. */
  stop(runId: string): RunRow {
    const row = this.get(runId);
    if (row.state !== 'paused' && row.state !== 'running') throw new IpcFailure('conflict', `the run has ended (${row.state})`);
    if (row.state === 'running' && row.session_id) this.o.sessions.cancel(row.session_id);
    return this.end(row, 'cancelled', { stopReason: 'stopped' });
  }

  /** A run goes on in the user's hands (sent a new prompt from the Inbox): it is running again and ends as before. */
  resumeFor(row: RunRow): RunRow {
    const resumed = this.update(row, { state: 'running', ended_at: null, pause: null, inbox: 'continued' });
    this.o.started(resumed);
    return resumed;
  }

  get(runId: string): RunRow {
    const row = this.o.store.run(runId);
    if (!row) throw new IpcFailure('not_found', `no run ${runId}`);
    return row;
  }

  private waiting(runId: string): RunRow {
    const row = this.get(runId);
    if (row.state !== 'queued' && row.state !== 'held') throw new IpcFailure('conflict', 'only a queued run can be moved');
    return row;
  }

  private update(row: RunRow, fields: Partial<Omit<RunRow, 'id'>>): RunRow {
    this.o.store.updateRun(row.id, fields);
    const next = this.o.store.run(row.id)!;
    this.o.changed(next);
    return next;
  }

  private async start(row: RunRow): Promise<void> {
    const spec = specOf(row.spec);
    try {
      if (!spec) throw new Error('the task could not be read');
      let cwd = spec.folder;
      if (spec.place === 'worktree') {
        const w = await this.o.worktrees.create(spec.folder, row.name);
        this.update(row, { worktree: w.path, branch: w.branch });
        cwd = w.path;
      }
      const { id } = await this.o.sessions.create({ agentId: spec.agentId, cwd, ...(spec.hostId ? { hostId: spec.hostId } : {}), ...(spec.container ? { container: spec.container } : {}) });
      const now = this.get(row.id);
      const linked = this.update(now, { session_id: id });
      // Cancelled while its session started: the session stays, nothing is sent.
      if (linked.state !== 'running') return;
      this.o.started(linked);
      await this.sendNext(linked);
    } catch (e) {
      const now = this.get(row.id);
      if (now.state === 'running') this.end(now, 'failed', { error: (e as Error).message });
    }
  }

  private async sendNext(row: RunRow): Promise<boolean> {
    const spec = specOf(row.spec);
    const prompt = spec?.prompts[row.prompts_sent];
    if (prompt === undefined || !row.session_id) return false;
    this.update(row, { prompts_sent: row.prompts_sent + 1 });
    await this.o.sessions.prompt(row.session_id, prompt);
    return true;
  }

  private turnEnded(sessionId: string, stopReason: string | null, error: string | null): void {
    const row = this.o.store.runOfSession(sessionId);
    if (!row || row.trig === 'session') return;
    if (row.state === 'paused') {
      this.update(row, { stop_reason: stopReason, last_message: this.lastMessage(sessionId) });
      return;
    }
    if (error) return void this.end(row, 'failed', { error, stopReason });
    if (stopReason === 'cancelled') return void this.end(row, 'cancelled', { stopReason });
    if (stopReason === 'end_turn' && row.prompts_sent < (specOf(row.spec)?.prompts.length ?? 0)) {
      void this.sendNext(row).catch((e: unknown) => this.end(this.get(row.id), 'failed', { error: (e as Error).message }));
      return;
    }
    this.end(row, 'done', { stopReason });
  }

  private end(row: RunRow, state: 'done' | 'failed' | 'cancelled', how: { stopReason?: string | null; error?: string }): RunRow {
    const ended = this.update(row, {
      state,
      ended_at: this.o.clock.now(),
      stop_reason: how.stopReason ?? row.stop_reason,
      error: how.error?.slice(0, 10_000) ?? null,
      last_message: row.session_id ? this.lastMessage(row.session_id) : null,
      inbox: row.trig === 'session' ? 'none' : 'open',
    });
    this.o.stopped(ended);
    this.pump();
    return ended;
  }

  private lastMessage(sessionId: string): string | null {
    try {
      const text = this.o.sessions.lastMessage(sessionId);
      return text === null ? null : text.length > MAX_LAST_MESSAGE ? `${text.slice(0, MAX_LAST_MESSAGE)}…` : text;
    } catch {
      return null;
    }
  }

  dispose(): void {
    this.turnLink.dispose();
  }
}
