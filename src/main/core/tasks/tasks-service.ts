import { randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { ContainerChoice } from '../../../shared/contract/containers';
import { parseHostId } from '../../../shared/contract/hosts';
import { taskInputSchema, type GlobalLimits, type Pause, type PriceTable, type Task, type TaskInput, type TaskRun, type Usage } from '../../../shared/contract/tasks';
import type { Clock, TimerHandle } from '../base/clock';
import type { EventBus } from '../base/event-bus';
import { DisposableStore, type Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { Db } from '../store/database';
import { BranchWatcher, type BranchHead } from './branch-watcher';
import { DEFAULT_PRICES, pricePerMillion } from './prices';
import { policyAnswer, type AskedPermission } from './run-policy';
import { RunQueue, type TaskSessions, type TaskWorktrees } from './run-queue';
import { dayOf, describeSchedule, nextRuns, scheduleProblem } from './schedule';
import { crossedLimit, limitInWords, usageReportOf, UsageMeter } from './spend-guard';
import { TaskScheduler } from './task-scheduler';
import { allowanceOf, limitsOfRun, runOf, specOf, TaskStore, type RunRow, type TaskRow } from './task-store';

/** What the guard and "run this again" need of the sessions, beyond running them. */
export interface GuardedSessions extends TaskSessions {
  /** Every usage_update an agent sends (its raw fields). */
  onUsage(listener: (sessionId: string, update: Record<string, unknown>) => void): Disposable;
  /** The model the session uses (its model config option), for the price table. */
  modelOf(sessionId: string): string | null;
  /** What the session already holds (context tokens and cumulative cost), when it opts in late. */
  usageOf(sessionId: string): { used: number; cost: number | null } | null;
  /** Every permission request an agent asks. */
  onPermission(listener: (p: { sessionId: string; requestId: string } & AskedPermission) => void): Disposable;
  respondPermission(sessionId: string, requestId: string, optionId: string): void;
  /** A live session's agent, folder, host and the user's prompts so far. */
  describe(sessionId: string): { agentId: string; cwd: string; hostId: string; title: string | null; prompts: string[]; container?: ContainerChoice | null } | null;
}

export interface TasksServiceOptions {
  db: () => Db;
  bus: EventBus;
  clock: Clock;
  /** The user's time zone (schedules and days); default the system's. */
  timeZone?: () => string;
  settings: { concurrency(): number; dailyLimits(): GlobalLimits; prices(): PriceTable | null };
  sessions: GuardedSessions;
  worktrees: TaskWorktrees;
  /** Reads a branch's commit (tasks that run on a new commit); without it, none runs that way. */
  branchHead?: BranchHead;
  /** A desktop notification ("paused by the guard", "finished"); the glue decides whether it shows. */
  notify?: (title: string, body: string) => void;
}

/**
 * Tasks (issue 41): stored tasks, their queue and schedules, the spend guard over their runs (and interactive
 * sessions that opt in), and the Inbox they end in.
 */
export class TasksService implements Disposable {
  readonly store: TaskStore;
  readonly queue: RunQueue;
  readonly scheduler: TaskScheduler;
  readonly branches: BranchWatcher;
  private readonly meter = new UsageMeter();
  private readonly wallClocks = new Map<string, TimerHandle>();
  /** Delegated sessions whose spending counts against the guarded run of their parent (child session → run). */
  private readonly children = new Map<string, { runId: string; agentId: string }>();
  private readonly disposables = new DisposableStore();

  constructor(private readonly o: TasksServiceOptions) {
    this.store = new TaskStore(o.db);
    this.queue = this.disposables.add(
      new RunQueue({
        store: this.store,
        clock: o.clock,
        sessions: o.sessions,
        worktrees: o.worktrees,
        concurrency: () => o.settings.concurrency(),
        holdReason: (row) => this.holdReason(row),
        changed: (row) => this.changed(row),
        started: (row) => this.watch(row),
        stopped: (row) => this.unwatch(row),
      }),
    );
    this.scheduler = this.disposables.add(
      new TaskScheduler({
        store: this.store,
        clock: o.clock,
        timeZone: () => this.timeZone(),
        due: (task) => this.enqueueTask(task, 'schedule'),
        missed: () => o.bus.emit('tasks.changed', {}),
      }),
    );
    this.branches = this.disposables.add(
      new BranchWatcher({ store: this.store, clock: o.clock, head: o.branchHead ?? (async () => null), due: (task) => this.enqueueTask(task, 'commit') }),
    );
    this.disposables.add(o.sessions.onUsage((sessionId, update) => this.usage(sessionId, update)));
    this.disposables.add(o.sessions.onPermission((p) => queueMicrotask(() => this.permission(p))));
  }

  /** A run's policy answers what it may while nobody watches; the answer is kept on the run, shown in the Inbox. */
  private permission(p: { sessionId: string; requestId: string } & AskedPermission): void {
    const row = this.store.runOfSession(p.sessionId);
    const spec = row && row.trig !== 'session' ? specOf(row.spec) : null;
    if (!row || !spec) return;
    const answer = policyAnswer(spec.policy, p, row.worktree ?? row.folder);
    if (!answer) {
      // Nobody may answer it but the user: the run waits in the Inbox ("needs you").
      if (row.inbox !== 'open') {
        this.store.updateRun(row.id, { inbox: 'open' });
        this.changed(this.store.run(row.id)!);
      }
      return;
    }
    try {
      this.o.sessions.respondPermission(p.sessionId, p.requestId, answer.optionId);
    } catch {
      return;
    }
    const answers = runOf(row).answers;
    const tool = String(p.toolCall.title ?? p.toolCall.kind ?? 'a tool').slice(0, 300);
    answers.push({ at: this.o.clock.now(), tool, allowed: answer.allowed });
    this.store.updateRun(row.id, { answers: JSON.stringify(answers.slice(-200)) });
    this.changed(this.store.run(row.id)!);
  }

  /** After the store is open: interrupted runs end, missed runs are listed, the queue and schedules start. */
  start(): this {
    this.queue.recover();
    this.scheduler.start();
    this.queue.pump();
    if (this.o.branchHead) this.branches.start();
    return this;
  }

  timeZone(): string {
    return this.o.timeZone?.() ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  }

  register(router: Router): this {
    router.handle('tasks.list', () => ({ tasks: this.store.tasks().flatMap((t) => this.taskOf(t) ?? []) }));
    router.handle('tasks.save', (p) => this.save(p.task, p.id));
    router.handle('tasks.delete', (p) => {
      this.store.deleteTask(p.id);
      this.scheduler.arm();
      this.o.bus.emit('tasks.changed', {});
      return {};
    });
    router.handle('tasks.fromSession', (p) => this.fromSession(p.sessionId));
    router.handle('tasks.previewSchedule', (p) => {
      const problem = scheduleProblem(p.schedule, this.timeZone());
      if (problem) throw new IpcFailure('invalid_params', problem);
      return { text: describeSchedule(p.schedule), nextRuns: nextRuns(p.schedule, this.o.clock.now(), 3, this.timeZone()) };
    });
    router.handle('tasks.enqueue', (p) => runOf(this.enqueueTask(this.task(p.taskId), 'queue')));
    router.handle('tasks.runs', (p) => ({
      runs: this.store
        .runs()
        .filter((r) => !p.inbox || r.inbox === 'open')
        .map(runOf),
      paused: this.queue.paused,
    }));
    router.handle('tasks.queue.move', (p) => (this.queue.move(p.runId, p.before), {}));
    router.handle('tasks.queue.pause', (p) => (this.queue.setPaused(p.paused), this.o.bus.emit('tasks.changed', {}), {}));
    router.handle('tasks.cancel', (p) => (this.queue.cancel(p.runId), {}));
    router.handle('tasks.missed', () => ({ missed: this.store.missed().map((m) => ({ taskId: m.task_id, name: m.name, dueAt: m.due_at })) }));
    router.handle('tasks.resolveMissed', (p) => {
      if (!this.store.removeMissed(p.taskId, p.dueAt)) throw new IpcFailure('not_found', 'no such missed run');
      if (p.action === 'run') this.enqueueTask(this.task(p.taskId), 'missed');
      this.o.bus.emit('tasks.changed', {});
      return {};
    });
    router.handle('tasks.continue', (p) => runOf(this.queue.continue(p.runId, p.more, (row, limit) => this.spentFor(row, limit), p.prompt)));
    router.handle('tasks.stop', (p) => runOf(this.queue.stop(p.runId)));
    router.handle('tasks.inbox.set', (p) => {
      const row = this.queue.get(p.runId);
      this.store.updateRun(row.id, { inbox: p.inbox });
      const next = this.queue.get(row.id);
      this.changed(next);
      return runOf(next);
    });
    router.handle('tasks.rerun', (p) => {
      const row = this.queue.get(p.runId);
      const spec = specOf(row.spec);
      if (!spec) throw new IpcFailure('conflict', 'the run’s task could not be read');
      return runOf(this.queue.enqueue(row.task_id, row.name, spec, 'rerun'));
    });
    router.handle('tasks.guardSession', (p) => ({ runId: this.guardSession(p.sessionId, p.limits) }));
    router.handle('tasks.usage', (p) => this.usageReport(p.days));
    router.handle('tasks.prices', () => this.prices());
    return this;
  }

  save(input: TaskInput, id?: string): Task {
    const problem = input.schedule ? scheduleProblem(input.schedule, this.timeZone()) : null;
    if (problem) throw new IpcFailure('invalid_params', problem);
    const now = this.o.clock.now();
    const old = id ? this.task(id) : undefined;
    const row: TaskRow = {
      id: old?.id ?? randomUUID(),
      name: input.name,
      spec: JSON.stringify(input),
      from_session: old?.from_session ?? null,
      // A schedule counts from when it was saved: no run "missed" before it existed.
      checked_at: now,
      created_at: old?.created_at ?? now,
      updated_at: now,
    };
    this.store.saveTask(row);
    this.scheduler.arm();
    // Where its branch is now is noted: only a commit after this runs it.
    if (this.o.branchHead) void this.branches.poll();
    this.o.bus.emit('tasks.changed', {});
    return this.taskOf(this.store.task(row.id)!)!;
  }

  /** "Run this again": the session's agent, folder, host and prompts as a task to save. */
  fromSession(sessionId: string): TaskInput {
    const s = this.o.sessions.describe(sessionId);
    if (!s) throw new IpcFailure('not_found', `no live session ${sessionId}`);
    const prompts = s.prompts.filter((p) => p.trim().length > 0).slice(0, 20);
    if (prompts.length === 0) throw new IpcFailure('conflict', 'the session has no prompt to run again');
    const name = (s.title ?? prompts[0]!).trim().split('\n')[0]!.slice(0, 80) || 'Task';
    // A session in a container: its task runs in a new container like it, on the machine that one ran on.
    const address = parseHostId(s.hostId);
    const machine = address?.kind === 'container' ? address.on : s.hostId;
    const onSsh = parseHostId(machine)?.kind === 'ssh';
    return taskInputSchema.parse({ name, prompts, agentId: s.agentId, folder: s.cwd, ...(onSsh ? { place: 'ssh', hostId: machine } : {}), ...(s.container ? { container: s.container } : {}) });
  }

  enqueueTask(task: TaskRow, trigger: TaskRun['trigger']): RunRow {
    const spec = specOf(task.spec);
    if (!spec) throw new IpcFailure('conflict', `the task ${task.name} could not be read`);
    return this.queue.enqueue(task.id, task.name, spec, trigger);
  }

  /** An interactive session opts in (its limits) or out (null); returns the guard's run record. */
  guardSession(sessionId: string, limits: TaskInput['limits'] | null): string | null {
    const current = this.store.runOfSession(sessionId);
    if (current?.trig === 'session') {
      this.store.updateRun(current.id, { state: 'done', ended_at: this.o.clock.now() });
      this.unwatch(current);
      this.meter.forget(sessionId);
    }
    if (!limits) return null;
    const s = this.o.sessions.describe(sessionId);
    if (!s) throw new IpcFailure('not_found', `no live session ${sessionId}`);
    const spec = taskInputSchema.parse({ name: s.title ?? 'Session', prompts: ['(interactive)'], agentId: s.agentId, folder: s.cwd, limits });
    this.meter.watch(sessionId, this.o.sessions.usageOf(sessionId) ?? undefined);
    const row = this.queue.enqueue(null, spec.name, spec, 'session', sessionId);
    this.watch(row);
    return row.id;
  }

  /**
   * A delegated session: when its parent is guarded (a task's run or a session that opted in), the child's
   * spending counts against the parent's limits, and the parent's pause cancels the child's turn too.
   */
  coverChild(childId: string, parentId: string): void {
    const parentRun = this.children.get(parentId)?.runId ?? this.store.runOfSession(parentId)?.id;
    if (!parentRun) return;
    this.children.set(childId, { runId: parentRun, agentId: this.o.sessions.describe(childId)?.agentId ?? 'unknown' });
    this.meter.watch(childId);
  }

  prices(): PriceTable {
    return this.o.settings.prices() ?? DEFAULT_PRICES;
  }

  private task(id: string): TaskRow {
    const t = this.store.task(id);
    if (!t) throw new IpcFailure('not_found', `no task ${id}`);
    return t;
  }

  private taskOf(row: TaskRow): Task | null {
    const spec = specOf(row.spec);
    if (!spec) return null;
    const now = this.o.clock.now();
    let next: number[] = [];
    try {
      next = spec.schedule ? nextRuns(spec.schedule, now, 3, this.timeZone()) : [];
    } catch {
      next = [];
    }
    return {
      ...spec,
      id: row.id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      fromSession: row.from_session,
      nextRuns: next,
      scheduleText: spec.schedule ? describeSchedule(spec.schedule) : null,
    };
  }

  private changed(row: RunRow): void {
    this.o.bus.emit('tasks.run', runOf(row));
  }

  private today(): string {
    return dayOf(this.o.clock.now(), this.timeZone());
  }

  /** A queued run waits while its task's or all agents' daily limit is reached. */
  private holdReason(row: RunRow): string | null {
    const day = this.today();
    const global = this.o.settings.dailyLimits();
    const all = this.store.spentOn(day);
    if (global.dayMoney !== undefined && all.money >= global.dayMoney) return `all agents reached today's limit of $${global.dayMoney.toFixed(2)}`;
    if (global.dayTokens !== undefined && all.tokens >= global.dayTokens) return `all agents reached today's limit of ${global.dayTokens} tokens`;
    if (row.task_id) {
      const limits = limitsOfRun(row);
      const task = this.store.spentOn(day, row.task_id);
      if (limits.dayMoney !== undefined && task.money >= limits.dayMoney) return `the task reached today's limit of $${limits.dayMoney.toFixed(2)}`;
      if (limits.dayTokens !== undefined && task.tokens >= limits.dayTokens) return `the task reached today's limit of ${limits.dayTokens} tokens`;
    }
    return null;
  }

  /** A run's session is watched: its spending counts from now, and its wall clock runs. */
  private watch(row: RunRow): void {
    if (row.session_id && !this.meter.watching(row.session_id)) this.meter.watch(row.session_id);
    this.wallClocks.get(row.id)?.cancel();
    const minutes = limitsOfRun(row).runMinutes;
    if (minutes === undefined || row.started_at === null) return;
    const allowed = (minutes + (allowanceOf(row).runMinutes ?? 0)) * 60_000;
    const wait = Math.max(0, row.started_at + allowed - this.o.clock.now());
    this.wallClocks.set(row.id, this.o.clock.setTimeout(() => this.check(row.id), wait));
  }

  private unwatch(row: RunRow): void {
    this.wallClocks.get(row.id)?.cancel();
    this.wallClocks.delete(row.id);
  }

  /** A usage_update of a guarded session: spending recorded, and the run paused at once if it crossed a limit. */
  private usage(sessionId: string, update: Record<string, unknown>): void {
    const report = usageReportOf(update);
    if (!report) return;
    const child = this.children.get(sessionId);
    const row = child ? this.store.run(child.runId) : this.store.runOfSession(sessionId);
    if (!row) return;
    const spend = this.meter.add(sessionId, report, pricePerMillion(this.prices(), this.o.sessions.modelOf(sessionId)));
    if (!spend || (spend.tokens === 0 && spend.money === 0)) return;
    const source = row.money_source === 'none' ? (spend.fromAgent ? 'agent' : 'prices') : row.money_source === (spend.fromAgent ? 'agent' : 'prices') ? row.money_source : 'mixed';
    this.store.spend(this.today(), child?.agentId ?? row.agent_id, row.task_id, spend.tokens, spend.money);
    // Rounded to a billionth: a sum of reported differences must reach a limit the reports reached.
    this.store.updateRun(row.id, { tokens: row.tokens + spend.tokens, money: Math.round((row.money + spend.money) * 1e9) / 1e9, money_source: source });
    this.check(row.id);
  }

  /** What a run has spent now against one limit. */
  private spentFor(row: RunRow, limit: Pause['limit']): number {
    const day = this.today();
    switch (limit) {
      case 'runTokens':
        return row.tokens;
      case 'runMoney':
        return row.money;
      case 'runMinutes':
        return row.started_at === null ? 0 : (this.o.clock.now() - row.started_at) / 60_000;
      case 'dayTokens':
      case 'dayMoney': {
        const spent = row.task_id ? this.store.spentOn(day, row.task_id) : { tokens: 0, money: 0 };
        return limit === 'dayTokens' ? spent.tokens : spent.money;
      }
      case 'allDayTokens':
        return this.store.spentOn(day).tokens;
      case 'allDayMoney':
        return this.store.spentOn(day).money;
    }
  }

  /** Pauses the run if it crossed a limit (its spending, its task's day, all agents' day, its wall clock). */
  private check(runId: string): void {
    const row = this.store.run(runId);
    if (!row || row.state !== 'running') return;
    const now = this.o.clock.now();
    const day = this.today();
    const pause = crossedLimit(
      limitsOfRun(row),
      this.o.settings.dailyLimits(),
      {
        run: { tokens: row.tokens, money: row.money, minutes: row.started_at === null ? 0 : (now - row.started_at) / 60_000 },
        taskDay: row.task_id ? this.store.spentOn(day, row.task_id) : null,
        allDay: this.store.spentOn(day),
      },
      allowanceOf(row),
      now,
    );
    if (!pause) {
      this.changed(row);
      return;
    }
    const paused = this.queue.pause(row, pause);
    for (const [childId, c] of this.children) if (c.runId === row.id) this.o.sessions.cancel(childId);
    this.o.bus.emit('tasks.paused', { run: runOf(paused) });
    this.o.notify?.(`${row.name} paused by its limit`, `${limitInWords(pause)}. Continue with more, or stop it, in the Inbox.`);
  }

  private usageReport(days: number): Usage {
    const tz = this.timeZone();
    const now = this.o.clock.now();
    const dayList = Array.from({ length: days }, (_, i) => dayOf(now - (days - 1 - i) * 86_400_000, tz));
    const rows = this.store.ledger(dayList[0]!);
    const today = dayList.at(-1)!;
    const names = new Map(this.store.tasks().map((t) => [t.id, t.name]));
    const sum = <K extends string>(list: typeof rows, key: (r: (typeof rows)[number]) => K) => {
      const m = new Map<K, { tokens: number; money: number }>();
      for (const r of list) {
        const k = key(r);
        const v = m.get(k) ?? { tokens: 0, money: 0 };
        m.set(k, { tokens: v.tokens + r.tokens, money: v.money + r.money });
      }
      return m;
    };
    const todays = rows.filter((r) => r.day === today);
    const perDay = sum(rows, (r) => r.day);
    return {
      today,
      byAgent: [...sum(todays, (r) => r.agent_id)].map(([agentId, v]) => ({ agentId, ...v })),
      byTask: [...sum(todays.filter((r) => r.task_id !== ''), (r) => r.task_id)].map(([taskId, v]) => ({ taskId, name: names.get(taskId) ?? 'deleted task', ...v })),
      days: dayList.map((day) => ({ day, ...(perDay.get(day) ?? { tokens: 0, money: 0 }) })),
    };
  }

  dispose(): Promise<void> {
    for (const t of this.wallClocks.values()) t.cancel();
    this.wallClocks.clear();
    return this.disposables.dispose();
  }
}
