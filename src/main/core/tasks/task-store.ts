import type { Db } from '../store/database';
import {
  pauseSchema,
  spendLimitsSchema,
  taskInputSchema,
  taskRunSchema,
  type LimitKey,
  type Pause,
  type RunState,
  type TaskInput,
  type TaskRun,
} from '../../../shared/contract/tasks';

export interface TaskRow {
  id: string;
  name: string;
  spec: string;
  from_session: string | null;
  checked_at: number;
  created_at: number;
  updated_at: number;
  /** JSON {branch, sha}: where the branch of a task run on commits was last seen (null: never looked at). */
  branch_seen?: string | null;
}

export interface RunRow {
  id: string;
  task_id: string | null;
  name: string;
  agent_id: string;
  spec: string;
  state: RunState;
  trig: TaskRun['trigger'];
  position: number;
  session_id: string | null;
  folder: string;
  worktree: string | null;
  branch: string | null;
  queued_at: number;
  started_at: number | null;
  ended_at: number | null;
  stop_reason: string | null;
  error: string | null;
  prompts_sent: number;
  tokens: number;
  money: number;
  money_source: TaskRun['moneySource'];
  pause: string | null;
  allowance: string;
  last_message: string | null;
  inbox: TaskRun['inbox'];
  hold_reason: string | null;
  answers: string;
}

/** A stored JSON field read back through its schema: a damaged row reads as its default, never as anything else. */
function parsed<T>(raw: string | null, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, fallback: T): T {
  if (raw === null) return fallback;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : fallback;
  } catch {
    return fallback;
  }
}

const answersSchema = taskRunSchema.shape.answers;

export const specOf = (raw: string): TaskInput | null => parsed<TaskInput | null>(raw, taskInputSchema, null);
export const pauseOf = (row: RunRow): Pause | null => parsed<Pause | null>(row.pause, pauseSchema, null);
export const allowanceOf = (row: RunRow): Partial<Record<LimitKey | 'allDayTokens' | 'allDayMoney', number>> => {
  const a = parsed<Record<string, unknown>>(row.allowance, { safeParse: (v) => (v && typeof v === 'object' ? { success: true, data: v as Record<string, unknown> } : { success: false }) }, {});
  return Object.fromEntries(Object.entries(a).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && e[1] >= 0));
};
export const limitsOfRun = (row: RunRow) => specOf(row.spec)?.limits ?? spendLimitsSchema.parse({});

export function runOf(row: RunRow): TaskRun {
  return {
    id: row.id,
    taskId: row.task_id,
    name: row.name,
    agentId: row.agent_id,
    state: row.state,
    trigger: row.trig,
    position: row.position,
    sessionId: row.session_id,
    folder: row.folder,
    worktree: row.worktree,
    branch: row.branch,
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    stopReason: row.stop_reason,
    error: row.error,
    promptsSent: row.prompts_sent,
    tokens: row.tokens,
    money: row.money,
    moneySource: row.money_source,
    pause: pauseOf(row),
    lastMessage: row.last_message,
    inbox: row.inbox,
    holdReason: row.hold_reason,
    answers: parsed(row.answers, answersSchema, []),
  };
}

/** The rows of tasks, their runs, the missed runs and the daily ledger. */
export class TaskStore {
  constructor(private readonly db: () => Db) {}

  tasks(): TaskRow[] {
    return this.db().prepare('SELECT * FROM tasks ORDER BY created_at').all() as TaskRow[];
  }
  task(id: string): TaskRow | undefined {
    return this.db().prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
  }
  saveTask(row: TaskRow): void {
    this.db()
      .prepare(
        `INSERT INTO tasks (id, name, spec, from_session, checked_at, created_at, updated_at) VALUES (@id, @name, @spec, @from_session, @checked_at, @created_at, @updated_at)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, spec = excluded.spec, checked_at = excluded.checked_at, updated_at = excluded.updated_at`,
      )
      .run(row);
  }
  deleteTask(id: string): void {
    const db = this.db();
    db.transaction(() => {
      db.prepare('DELETE FROM tasks WHERE id = ?').run(id);
      db.prepare('DELETE FROM task_missed WHERE task_id = ?').run(id);
      db.prepare("UPDATE task_runs SET state = 'cancelled', ended_at = COALESCE(ended_at, ?) WHERE task_id = ? AND state IN ('queued', 'held')").run(Date.now(), id);
    })();
  }
  /** Where the task's branch was last seen, kept for the next start (see BranchWatcher). */
  branchSeen(id: string): { branch: string; sha: string } | null {
    const row = this.db().prepare('SELECT branch_seen FROM tasks WHERE id = ?').get(id) as { branch_seen: string | null } | undefined;
    if (!row?.branch_seen) return null;
    try {
      const v = JSON.parse(row.branch_seen) as { branch?: unknown; sha?: unknown };
      return typeof v.branch === 'string' && typeof v.sha === 'string' ? { branch: v.branch, sha: v.sha } : null;
    } catch {
      return null;
    }
  }
  setBranchSeen(id: string, branch: string, sha: string): void {
    this.db().prepare('UPDATE tasks SET branch_seen = ? WHERE id = ?').run(JSON.stringify({ branch, sha }), id);
  }
  setChecked(id: string, at: number): void {
    this.db().prepare('UPDATE tasks SET checked_at = ? WHERE id = ?').run(at, id);
  }

  run(id: string): RunRow | undefined {
    return this.db().prepare('SELECT * FROM task_runs WHERE id = ?').get(id) as RunRow | undefined;
  }
  runs(): RunRow[] {
    return this.db().prepare('SELECT * FROM task_runs ORDER BY position').all() as RunRow[];
  }
  runsIn(...states: RunState[]): RunRow[] {
    return this.db()
      .prepare(`SELECT * FROM task_runs WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY position`)
      .all(...states) as RunRow[];
  }
  runOfSession(sessionId: string): RunRow | undefined {
    return this.db().prepare("SELECT * FROM task_runs WHERE session_id = ? AND state IN ('running', 'paused') ORDER BY queued_at DESC").get(sessionId) as RunRow | undefined;
  }
  nextPosition(): number {
    return ((this.db().prepare('SELECT MAX(position) AS p FROM task_runs').get() as { p: number | null }).p ?? 0) + 1;
  }
  insertRun(row: RunRow): void {
    const cols = Object.keys(row);
    this.db()
      .prepare(`INSERT INTO task_runs (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`)
      .run(row);
  }
  updateRun(id: string, fields: Partial<Omit<RunRow, 'id'>>): void {
    const cols = Object.keys(fields);
    if (cols.length === 0) return;
    this.db()
      .prepare(`UPDATE task_runs SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`)
      .run({ ...fields, id });
  }

  missed(): Array<{ task_id: string; due_at: number; name: string }> {
    return this.db().prepare('SELECT m.task_id, m.due_at, t.name FROM task_missed m JOIN tasks t ON t.id = m.task_id ORDER BY m.due_at').all() as Array<{
      task_id: string;
      due_at: number;
      name: string;
    }>;
  }
  addMissed(taskId: string, dueAt: number): void {
    this.db().prepare('INSERT OR IGNORE INTO task_missed (task_id, due_at) VALUES (?, ?)').run(taskId, dueAt);
  }
  removeMissed(taskId: string, dueAt: number): boolean {
    return this.db().prepare('DELETE FROM task_missed WHERE task_id = ? AND due_at = ?').run(taskId, dueAt).changes > 0;
  }

  /** Adds spending to the day's ledger. */
  spend(day: string, agentId: string, taskId: string | null, tokens: number, money: number): void {
    this.db()
      .prepare(
        `INSERT INTO spend_days (day, agent_id, task_id, tokens, money) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(day, agent_id, task_id) DO UPDATE SET tokens = tokens + excluded.tokens, money = money + excluded.money`,
      )
      .run(day, agentId, taskId ?? '', tokens, money);
  }
  /** The day's spending of one task (or of all, taskId undefined). */
  spentOn(day: string, taskId?: string): { tokens: number; money: number } {
    const r = (
      taskId === undefined
        ? this.db().prepare('SELECT SUM(tokens) AS tokens, SUM(money) AS money FROM spend_days WHERE day = ?').get(day)
        : this.db().prepare('SELECT SUM(tokens) AS tokens, SUM(money) AS money FROM spend_days WHERE day = ? AND task_id = ?').get(day, taskId)
    ) as { tokens: number | null; money: number | null };
    return { tokens: r.tokens ?? 0, money: r.money ?? 0 };
  }
  ledger(fromDay: string): Array<{ day: string; agent_id: string; task_id: string; tokens: number; money: number }> {
    return this.db().prepare('SELECT day, agent_id, task_id, tokens, money FROM spend_days WHERE day >= ? ORDER BY day').all(fromDay) as Array<{
      day: string;
      agent_id: string;
      task_id: string;
      tokens: number;
      money: number;
    }>;
  }
}
