import { randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { Compare, CompareRun } from '../../../shared/contract/compare';
import type { PromptBlock, SessionInfo } from '../../../shared/contract/sessions';
import type { SpendLimits } from '../../../shared/contract/tasks';
import { suggestBranchName, type MergeStrategy, type WorktreeError, type WorktreeOutcome } from '../../../shared/contract/worktrees';
import { AgentRepository } from '../agents/agent-repository';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from '../store/store-service';
import type { Host } from '../host/host';
import { gitOwn } from '../worktrees/git';
import { changedFiles, revParse } from '../worktrees/repo-git';
import type { WorktreeService } from '../worktrees/worktree-service';
import { comparisonHtml } from './export-html';
import { CompareJudges, type JudgeSessions } from './judge';

interface CompareRow {
  id: string;
  repo: string;
  base: string;
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
  kept_at: number | null;
}

/** A session status that waits for the user, not for the agent. */
const waitsForUser = (status: string): boolean => status === 'awaiting_permission' || status === 'auth_required';

/** An agent's name as a branch-name part: letters, digits, dots and dashes. */
const branchLabel = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 40)
    .replace(/[-.]+$/, '') || 'agent';

/** The commit message of a run's own changes: the prompt (its first line as the subject). */
function commitMessage(prompt: string): string {
  const first = prompt.trim().split('\n')[0]!.trim();
  const subject = first.length > 72 ? `${first.slice(0, 71)}…` : first;
  return subject === prompt.trim() ? subject : `${subject}\n\n${prompt.trim()}`;
}

function worktreeProblem(e: WorktreeError): string {
  switch (e.kind) {
    case 'outside_folder':
      return `the worktrees folder ${e.folder} is inside the repository or the data folder (Settings → General)`;
    case 'git_failed':
      return `${e.command} failed${e.hook ? ` (the ${e.hook} hook)` : ''}: ${e.output}`;
    case 'not_a_repo':
      return e.message;
    case 'no_base':
      return `there is no branch ${e.base}`;
    default:
      return e.kind.replace(/_/g, ' ');
  }
}

/** What compare needs of the sessions service: start a session, prompt it, and hear when its turns end. */
export interface CompareSessions extends JudgeSessions {
  create(p: { agentId: string; cwd: string }): Promise<{ id: string }>;
  prompt(sessionId: string, prompt: PromptBlock[]): unknown;
  onTurnEnded(listener: (turn: { sessionId: string; stopReason: string | null; error: { message: string } | null }) => void): Disposable;
  onStatusChanged(listener: (session: SessionInfo) => void): Disposable;
}

/**
 * Compare mode: one prompt, one worktree session per agent (made by the worktree service, as the new-session
 * form makes one), and the bookkeeping that ties them together. Applying a run is the worktree merge.
 */
export class CompareService implements Disposable {
  private readonly turnLink: Disposable;
  private readonly statusLink: Disposable;
  /**
   * Per session of a run: how long it waited for the user. Kept in memory: a session lives only as long as
   * this process, and a run still going after a restart is not waiting for anyone.
   */
  private readonly waits = new Map<string, { waitedMs: number; waitingSince: number | null }>();
  /** The comparisons' judges. */
  private readonly judges: CompareJudges;

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    private readonly sessions: CompareSessions,
    private readonly worktrees: WorktreeService,
    /** Where the repositories and their worktrees are. */
    private readonly host: Host,
    /** The spend guard: a run's session counts its spending and is paused at its limits (before its prompt). */
    private readonly guard?: (sessionId: string, limits: SpendLimits) => void,
  ) {
    this.judges = new CompareJudges(() => store.db, host, sessions, (id) => new AgentRepository(store.db).get(id)?.name ?? id);
    // A run ends when its session's turn ends, whether or not a compare view is open.
    this.turnLink = sessions.onTurnEnded(({ sessionId, stopReason, error }) => {
      if (!this.store.available) return;
      const judged = this.judges.turnEnded(sessionId, error?.message ?? null);
      if (judged) return void this.changed(judged);
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

  register(router: Router): void {
    router.handle('compare.create', async (p) => {
      const compare = await this.create(p.repo, p.prompt, p.agentIds, p.base, p.judge);
      return p.start ? this.start(compare, p.limits ?? {}) : compare;
    });
    router.handle('compare.updateRun', (p) => this.updateRun(p.compareId, p.runId, p.sessionId, p.ended));
    router.handle('compare.get', (p) => this.get(p.compareId));
    router.handle('compare.list', () => ({
      compares: (this.store.db.prepare('SELECT id FROM compares ORDER BY created_at DESC').all() as { id: string }[]).map((r) => this.get(r.id)),
    }));
    router.handle('compare.apply', (p) => this.apply(p.compareId, p.runId, p.strategy, p.message));
    router.handle('compare.judge', async (p) => {
      const compare = this.get(p.compareId);
      if (!new AgentRepository(this.store.db).get(p.judge.agentId)) throw new IpcFailure('not_found', `no agent ${p.judge.agentId}`);
      this.judges.set(compare.id, p.judge.agentId, p.judge.criteria);
      await this.judges.startWhenDone(this.get(compare.id));
      return this.changed(compare.id);
    });
    router.handle('compare.export', async (p) => {
      const compare = this.get(p.compareId);
      const judgeName = compare.judge ? (new AgentRepository(this.store.db).get(compare.judge.agentId)?.name ?? compare.judge.agentId) : null;
      return { fileName: `comparison-${compare.id}.html`, html: comparisonHtml(compare, await this.judges.results(compare), judgeName) };
    });
    router.handle('compare.keep', (p) => {
      const { run } = this.run(p.compareId, p.runId);
      this.store.db.prepare('UPDATE compare_runs SET kept_at = ? WHERE id = ?').run(Date.now(), run.id);
      return this.changed(p.compareId);
    });
  }

  /**
   * Makes one worktree session per agent on a new branch from `base` (default: the main checkout's branch).
   * All or nothing: when one cannot be made, those made are discarded again.
   */
  async create(repoPath: string, prompt: string, agentIds: string[], base?: string, judge?: { agentId: string; criteria: string }): Promise<Compare> {
    const agents = new AgentRepository(this.store.db);
    for (const id of [...agentIds, ...(judge ? [judge.agentId] : [])]) if (!agents.get(id)) throw new IpcFailure('not_found', `no agent ${id}`);
    const listed = await this.worktrees.list(repoPath);
    if (!listed.ok) throw new IpcFailure('invalid_params', `${repoPath} is not a git repository: compare mode runs each agent in its own worktree of one (${worktreeProblem(listed.error)})`);
    const repo = listed.value.repo;
    const baseName = base ?? listed.value.currentBranch;
    if (!baseName) throw new IpcFailure('invalid_params', `${repo} is on a detached HEAD: choose the branch to start from`);
    const baseCommit = await revParse(this.host, repo, `refs/heads/${baseName}`);
    if (!baseCommit) throw new IpcFailure('invalid_params', `${repo} has no commit on ${baseName} to start from`);

    const id = randomUUID().slice(0, 8);
    const now = Date.now();
    const prefix = suggestBranchName(prompt, 'compare');
    const created: RunRow[] = [];
    try {
      for (const [i, agentId] of agentIds.entries()) {
        const name = `${prefix}-${branchLabel(agents.get(agentId)?.name ?? '')}`;
        // Another comparison of the same prompt (or the same agent twice): the next free name.
        let out: Awaited<ReturnType<WorktreeService['createNew']>>;
        let branch = name;
        for (let n = 2; ; n++) {
          out = await this.worktrees.createNew(repo, branch, baseName);
          if (out.ok || out.error.kind !== 'branch_exists' || n > 100) break;
          branch = `${name}-${n}`;
        }
        if (!out.ok) throw new Error(`could not make the worktree of ${agents.get(agentId)?.name ?? agentId}: ${worktreeProblem(out.error)}`);
        const { path } = out.value.worktree;
        created.push({ id: `${id}-${i + 1}`, compare_id: id, agent_id: agentId, worktree: path, branch, session_id: null, started_at: now, ended_at: null, stop_reason: null, error: null, applied_at: null, kept_at: null });
      }
    } catch (e) {
      for (const r of created) await this.worktrees.known(r.worktree, (w, m) => this.worktrees.discard(w, m, []));
      throw new IpcFailure('internal', (e as Error).message);
    }
    const db = this.store.db;
    db.transaction(() => {
      db.prepare('INSERT INTO compares (id, repo, base, base_commit, prompt, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, repo, baseName, baseCommit, prompt, now);
      const ins = db.prepare(
        'INSERT INTO compare_runs (id, compare_id, agent_id, worktree, branch, session_id, started_at) VALUES (@id, @compare_id, @agent_id, @worktree, @branch, NULL, @started_at)',
      );
      for (const r of created) ins.run(r);
    })();
    if (judge) this.judges.set(id, judge.agentId, judge.criteria);
    return this.changed(id);
  }

  /** Starts each run's session in its worktree and sends the prompt; a run that cannot start records why. */
  private async start(compare: Compare, limits: SpendLimits): Promise<Compare> {
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
          this.guard?.(sessionId, limits);
          await this.sessions.prompt(sessionId, [{ type: 'text', text: compare.prompt }]);
        } catch (e) {
          failed(run, e);
        }
      }),
    );
    return this.get(compare.id);
  }

  /**
   * "Apply this one": the run's uncommitted changes become a commit on its branch, and the branch is merged into
   * the base by the worktree merge (its checks, its refusals, its strategies).
   */
  async apply(
    compareId: string,
    runId: string,
    strategy: MergeStrategy,
    message?: string,
  ): Promise<WorktreeOutcome<{ base: string; head: string; strategy: MergeStrategy; files: string[] }>> {
    const { compare, run } = this.run(compareId, runId);
    const out = await this.worktrees.known(run.worktree, async (w, m) => {
      const pending = await changedFiles(this.host, w.path);
      if (pending.length > 0) {
        const made = await this.worktrees.commit(w, m, message?.trim() || commitMessage(compare.prompt), pending.map((f) => f.path));
        if (!made.ok) return made;
      }
      const files = (await gitOwn(this.host, w.repo, ['diff', '--name-only', '-z', `refs/heads/${w.base}...refs/heads/${w.branch}`])).stdout.split('\0').filter(Boolean);
      const merged = await this.worktrees.merge(w, m, strategy, message);
      return merged.ok ? { ok: true as const, value: { ...merged.value, files } } : merged;
    });
    if (out.ok) {
      this.store.db.prepare('UPDATE compare_runs SET applied_at = ? WHERE id = ?').run(Date.now(), run.id);
      this.changed(compare.id);
    }
    return out;
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
      // The last run ended: the judge, if one is named, reads them all.
      void this.judges.startWhenDone(this.get(compareId)).then(
        (started) => started && this.changed(compareId),
        (e: unknown) => console.error('the judge did not start:', e),
      );
    }
    return this.changed(compareId);
  }

  get(compareId: string): Compare {
    const row = this.store.db.prepare('SELECT * FROM compares WHERE id = ?').get(compareId) as CompareRow | undefined;
    if (!row) throw new IpcFailure('not_found', `no comparison ${compareId}`);
    const runs = (this.store.db.prepare('SELECT * FROM compare_runs WHERE compare_id = ? ORDER BY id').all(compareId) as RunRow[]).map((r): CompareRun => {
      const wait = r.session_id ? this.waits.get(r.session_id) : undefined;
      return {
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
        keptAt: r.kept_at,
        discarded: this.worktrees.info(r.worktree) === null,
        waitedMs: wait?.waitedMs ?? 0,
        waitingSince: r.ended_at === null ? (wait?.waitingSince ?? null) : null,
      };
    });
    return { id: row.id, repo: row.repo, base: row.base, baseCommit: row.base_commit, prompt: row.prompt, createdAt: row.created_at, runs, judge: this.judges.view(row.id, runs) };
  }

  private run(compareId: string, runId: string): { compare: Compare; run: CompareRun } {
    const compare = this.get(compareId);
    const run = compare.runs.find((r) => r.id === runId);
    if (!run) throw new IpcFailure('not_found', `no run ${runId} in comparison ${compareId}`);
    return { compare, run };
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
