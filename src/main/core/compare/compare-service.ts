import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import type { Compare, CompareRun } from '../../../shared/contract/compare';
import type { PromptBlock, SessionInfo } from '../../../shared/contract/sessions';
import { AgentRepository } from '../agents/agent-repository';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from '../store/store-service';
import type { Host } from '../host/host';
import { git, GitError, repoRoot } from '../worktrees/git';
import { addWorktree, applyWorktree, removeWorktree } from './worktrees';

interface CompareRow {
  id: string;
  repo: string;
  base_commit: string;
  prompt: string;
  created_at: number;
}
interface RunRow {
  id: string;
  compare_id: string;
  agent_id: string;
  worktree: string;
  branch: string;
  session_id: string | null;
  started_at: number;
  ended_at: number | null;
  stop_reason: string | null;
  error: string | null;
  applied_at: number | null;
}

/** A session status that waits for the user, not for the agent. */
const waitsForUser = (status: string): boolean => status === 'awaiting_permission' || status === 'auth_required';

const toRun = (r: RunRow, wait: { waitedMs: number; waitingSince: number | null } | undefined): CompareRun => ({
  id: r.id,
  agentId: r.agent_id,
  worktree: r.worktree,
  branch: r.branch,
  sessionId: r.session_id,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  stopReason: r.stop_reason,
  error: r.error,
  appliedAt: r.applied_at,
  waitedMs: wait?.waitedMs ?? 0,
  waitingSince: r.ended_at === null ? (wait?.waitingSince ?? null) : null,
});

/** What compare needs of the sessions service: start a session, prompt it, and hear when its turns end. */
export interface CompareSessions {
  create(p: { agentId: string; cwd: string }): Promise<{ id: string }>;
  prompt(sessionId: string, prompt: PromptBlock[]): unknown;
  onTurnEnded(listener: (turn: { sessionId: string; stopReason: string | null; error: { message: string } | null }) => void): Disposable;
  onStatusChanged(listener: (session: SessionInfo) => void): Disposable;
}

/** Compare mode's worktrees and their bookkeeping. Sessions in the worktrees are ordinary sessions. */
export class CompareService implements Disposable {
  private readonly root: string;

  private readonly turnLink: Disposable;
  private readonly statusLink: Disposable;
  /**
   * Per session of a run: how long it waited for the user. Kept in memory: a session lives only as long as
   * this process, and a run still going after a restart is not waiting for anyone.
   */
  private readonly waits = new Map<string, { waitedMs: number; waitingSince: number | null }>();

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    private readonly sessions: CompareSessions,
    dataDir: string,
    /** Where the repositories and their worktrees are. */
    private readonly host: Host,
    /** Whether the user lets the repository's git hooks run for compare mode's own git commands. */
    private readonly repoHooks: () => boolean = () => false,
  ) {
    this.root = join(dataDir, 'worktrees');
    // A run ends when its session's turn ends, whether or not a compare view is open.
    this.turnLink = sessions.onTurnEnded(({ sessionId, stopReason, error }) => {
      if (!this.store.available) return;
      const run = this.store.db.prepare('SELECT id, compare_id FROM compare_runs WHERE session_id = ? AND ended_at IS NULL').get(sessionId) as
        | { id: string; compare_id: string }
        | undefined;
      if (run) this.updateRun(run.compare_id, run.id, undefined, { stopReason, error: error?.message ?? null });
    });
    this.statusLink = sessions.onStatusChanged((s) => this.onSessionState(s));
  }

  /** A run's timer stops while its session waits for the user (its Time is the agent's, not the user's). */
  private onSessionState(s: SessionInfo): void {
    if (!this.store.available) return;
    const waiting = waitsForUser(s.status);
    const known = this.waits.get(s.id);
    if (!known && !waiting) return;
    const row = this.store.db.prepare('SELECT id, compare_id FROM compare_runs WHERE session_id = ? AND ended_at IS NULL').get(s.id) as
      | { id: string; compare_id: string }
      | undefined;
    if (!row) return;
    const wait = known ?? { waitedMs: 0, waitingSince: null };
    const now = Date.now();
    if (waiting && wait.waitingSince === null) wait.waitingSince = now;
    else if (!waiting && wait.waitingSince !== null) {
      wait.waitedMs += now - wait.waitingSince;
      wait.waitingSince = null;
    } else return;
    this.waits.set(s.id, wait);
    this.changed(row.compare_id);
  }

  private hooks(): { repoHooks: boolean } {
    return { repoHooks: this.repoHooks() };
  }

  register(router: Router): void {
    router.handle('compare.create', async (p) => {
      const compare = await this.create(p.repo, p.prompt, p.agentIds);
      return p.start ? this.start(compare) : compare;
    });
    router.handle('compare.updateRun', (p) => this.updateRun(p.compareId, p.runId, p.sessionId, p.ended));
    router.handle('compare.get', (p) => this.get(p.compareId));
    router.handle('compare.list', () => ({
      compares: (this.store.db.prepare('SELECT id FROM compares ORDER BY created_at DESC').all() as { id: string }[]).map((r) => this.get(r.id)),
    }));
    router.handle('compare.apply', async (p) => {
      const { compare, run } = this.run(p.compareId, p.runId);
      let files: string[];
      try {
        files = await applyWorktree(this.host, run.worktree, compare.baseCommit, compare.repo, this.hooks());
      } catch (e) {
        if (e instanceof GitError) {
          throw new IpcFailure('conflict', `the changes do not apply cleanly to ${compare.repo} (it changed since the comparison started): ${e.message}`);
        }
        throw e;
      }
      this.store.db.prepare('UPDATE compare_runs SET applied_at = ? WHERE id = ?').run(Date.now(), run.id);
      this.changed(compare.id);
      return { files };
    });
    router.handle('compare.discard', async (p) => {
      await this.discard(p.compareId);
      return {};
    });
  }

  async create(repoPath: string, prompt: string, agentIds: string[]): Promise<Compare> {
    const agents = new AgentRepository(this.store.db);
    for (const id of agentIds) if (!agents.get(id)) throw new IpcFailure('not_found', `no agent ${id}`);
    let repo: string;
    let base: string;
    try {
      repo = await repoRoot(this.host, repoPath);
      base = (await git(this.host, repo, ['rev-parse', 'HEAD'])).trim();
    } catch (e) {
      throw new IpcFailure('invalid_params', `${repoPath} is not a git repository with a commit: ${(e as Error).message}`);
    }
    const id = randomUUID().slice(0, 8);
    const now = Date.now();
    mkdirSync(join(this.root, id), { recursive: true });
    const created: RunRow[] = [];
    try {
      for (const [i, agentId] of agentIds.entries()) {
        const runId = `${id}-${i + 1}`;
        // Named after the agent as the user knows it (the folder shows in the overview and history), not its id.
        const label = (agents.get(agentId)?.name ?? '').replace(/[^\w.-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40) || 'agent';
        const worktree = join(this.root, id, `${i + 1}-${label}`);
        const branch = `switchboard/compare-${id}-${i + 1}`;
        await addWorktree(this.host, repo, worktree, branch, base, this.hooks());
        created.push({ id: runId, compare_id: id, agent_id: agentId, worktree, branch, session_id: null, started_at: now, ended_at: null, stop_reason: null, error: null, applied_at: null });
      }
    } catch (e) {
      // All or nothing: no stray worktree or branch from a half-made comparison.
      for (const r of created) await removeWorktree(this.host, repo, r.worktree, r.branch, this.hooks());
      rmSync(join(this.root, id), { recursive: true, force: true });
      throw new IpcFailure('internal', `could not create the worktrees: ${(e as Error).message}`);
    }
    const db = this.store.db;
    db.transaction(() => {
      db.prepare('INSERT INTO compares (id, repo, base_commit, prompt, created_at) VALUES (?, ?, ?, ?, ?)').run(id, repo, base, prompt, now);
      const ins = db.prepare(
        'INSERT INTO compare_runs (id, compare_id, agent_id, worktree, branch, session_id, started_at) VALUES (@id, @compare_id, @agent_id, @worktree, @branch, NULL, @started_at)',
      );
      for (const r of created) ins.run(r);
    })();
    return this.changed(id);
  }

  /** Starts each run's session in its worktree and sends the prompt; a run that cannot start records why. */
  private async start(compare: Compare): Promise<Compare> {
    const failed = (run: CompareRun, e: unknown) => this.updateRun(compare.id, run.id, undefined, { stopReason: null, error: e instanceof Error ? e.message : String(e) });
    await Promise.all(
      compare.runs.map(async (run) => {
        let sessionId: string;
        try {
          sessionId = (await this.sessions.create({ agentId: run.agentId, cwd: run.worktree })).id;
        } catch (e) {
          return failed(run, e);
        }
        this.updateRun(compare.id, run.id, sessionId);
        try {
          await this.sessions.prompt(sessionId, [{ type: 'text', text: compare.prompt }]);
        } catch (e) {
          failed(run, e);
        }
      }),
    );
    return this.get(compare.id);
  }

  updateRun(compareId: string, runId: string, sessionId?: string, ended?: { stopReason: string | null; error: string | null }): Compare {
    this.run(compareId, runId);
    const db = this.store.db;
    if (sessionId) db.prepare('UPDATE compare_runs SET session_id = ? WHERE id = ?').run(sessionId, runId);
    if (ended) {
      const now = Date.now();
      const session = (db.prepare('SELECT session_id FROM compare_runs WHERE id = ?').get(runId) as { session_id: string | null }).session_id;
      const wait = session ? this.waits.get(session) : undefined;
      if (wait?.waitingSince != null) {
        wait.waitedMs += now - wait.waitingSince;
        wait.waitingSince = null;
      }
      db.prepare('UPDATE compare_runs SET ended_at = ?, stop_reason = ?, error = ? WHERE id = ?').run(now, ended.stopReason, ended.error, runId);
    }
    return this.changed(compareId);
  }

  get(compareId: string): Compare {
    const row = this.store.db.prepare('SELECT * FROM compares WHERE id = ?').get(compareId) as CompareRow | undefined;
    if (!row) throw new IpcFailure('not_found', `no comparison ${compareId}`);
    const runs = (this.store.db.prepare('SELECT * FROM compare_runs WHERE compare_id = ? ORDER BY id').all(compareId) as RunRow[]).map((r) =>
      toRun(r, r.session_id ? this.waits.get(r.session_id) : undefined),
    );
    return { id: row.id, repo: row.repo, baseCommit: row.base_commit, prompt: row.prompt, createdAt: row.created_at, runs };
  }

  private run(compareId: string, runId: string): { compare: Compare; run: CompareRun } {
    const compare = this.get(compareId);
    const run = compare.runs.find((r) => r.id === runId);
    if (!run) throw new IpcFailure('not_found', `no run ${runId} in comparison ${compareId}`);
    return { compare, run };
  }

  async discard(compareId: string): Promise<void> {
    const compare = this.get(compareId);
    for (const run of compare.runs) await removeWorktree(this.host, compare.repo, run.worktree, run.branch, this.hooks());
    rmSync(join(this.root, compareId), { recursive: true, force: true });
    this.store.db.prepare('DELETE FROM compares WHERE id = ?').run(compareId);
  }

  private changed(compareId: string): Compare {
    const c = this.get(compareId);
    this.bus.emit('compare.changed', c);
    return c;
  }

  dispose(): void {
    void this.turnLink.dispose();
    void this.statusLink.dispose();
  }
}
