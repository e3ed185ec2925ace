import { join, posix } from 'node:path';
import type { MergeStrategy, RepoBranches, RepoWorktreeSetting, SetupRun, WorktreeInfo, WorktreeStatus } from '../../../shared/contract/worktrees';
import { repoWorktreeSettingSchema } from '../../../shared/contract/worktrees';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { Host } from '../host/host';
import type { StoreService } from '../store/store-service';
import { LOCAL_HOST_ID } from '../../../shared/contract/hosts';
import { folderNameFor, folderProblem, isInside } from './folder';
import { GitError, gitOwn, gitRun } from './git';
import { addWorktree, deleteBranch, pruneWorktrees, removeWorktree } from './worktree-git';
import { draftPullRequest, type DraftSessions } from './draft';
import { installedHook } from './hooks';
import { Leftovers } from './leftovers';
import { existsOn, folderOn, realOn, type Machine } from './machine';
import { mergeIntoBase } from './merge';
import { pullRequest, push, type Outcome } from './publish';
import { aheadBehind, branchHeads, branches, changedFiles, listWorktrees, mainCheckout, revParse, statusEntries, unmergedCommits, upstreamOf } from './repo-git';
import { SetupRunner } from './setup-runner';

interface Row {
  path: string;
  repo: string;
  branch: string;
  base: string;
  created: number;
  created_at: number;
  host_id: string;
}

const toInfo = (r: Row): WorktreeInfo => ({ path: r.path, repo: r.repo, branch: r.branch, base: r.base, createdAt: r.created_at, hostId: r.host_id });

export interface WorktreeServiceOptions {
  store: StoreService;
  bus: EventBus;
  host: Host;
  /** An SSH host by id, connected first when it is not (worktrees there are made and finished through its helper). */
  remote?: (hostId: string) => Promise<Host>;
  dataDir: string;
  settings: { folder(): string; repo(repo: string): RepoWorktreeSetting };
  /** The environment of the setup command and of `gh` (the user's own). */
  env: () => Record<string, string>;
  /** The sessions whose agents draft pull requests; the folders open sessions work in. */
  sessions: DraftSessions & { openFolders(): string[] };
  /** A worktree's folder was removed (discarded, or removed as a leftover): what pointed at it lets go. */
  onRemoved?(path: string): void;
}

/**
 * Worktree sessions: the worktrees Switchboard made (or was pointed at) for sessions, and the way back from them.
 * Every git call goes through the host; the user's hooks and config apply as with their own git. The main
 * checkout is touched only by a merge the user asked for.
 */
export class WorktreeService implements Disposable {
  readonly setup: SetupRunner;
  private readonly leftovers: Leftovers;

  constructor(private readonly o: WorktreeServiceOptions) {
    this.setup = new SetupRunner(o.host, o.bus, o.env);
    this.leftovers = new Leftovers({ host: o.host, store: o.store, dataDir: o.dataDir, openFolders: () => o.sessions.openFolders() });
  }

  register(router: Router): this {
    router.handle('worktrees.list', (p) => this.list(p.repo, p.hostId));
    router.handle('worktrees.create', (p) => (p.kind === 'new' ? this.createNew(p.repo, p.branch, p.base, p.path, p.hostId) : this.adopt(p.path, p.base, p.hostId)));
    router.handle('worktrees.describe', (p) => ({ worktrees: Object.fromEntries(p.paths.map((path) => [path, this.row(path) ? toInfo(this.row(path)!) : null])) }));
    router.handle('worktrees.status', (p) => this.known(p.path, (r, m) => this.status(r, m)));
    router.handle('worktrees.commit', (p) => this.known(p.path, (r, m) => this.commit(r, m, p.message, p.files)));
    router.handle('worktrees.merge', (p) => this.known(p.path, (r, m) => this.merge(r, m, p.strategy, p.message)));
    router.handle('worktrees.push', (p) =>
      this.known(p.path, async (r, m) => {
        const out = await push(m.host, r.path, r.branch, p.remote);
        if (out.ok) this.changed(r);
        return out;
      }),
    );
    router.handle('worktrees.pullRequest', (p) =>
      this.known(p.path, async (r, m) => {
        // `gh` on an SSH host runs in that host's own environment, not with this machine's.
        const out = await pullRequest(m.host, r.path, { branch: r.branch, base: r.base, title: p.title, body: p.body, draft: p.draft }, m.local ? this.o.env() : {});
        if (out.ok) this.changed(r);
        return out;
      }),
    );
    router.handle('worktrees.draftPullRequest', (p) => this.known(p.path, (r, m) => draftPullRequest(m.host, this.o.sessions, p.sessionId, r)));
    router.handle('worktrees.discardPlan', (p) => this.known(p.path, (r, m) => this.discardPlan(r, m)));
    router.handle('worktrees.discard', (p) => this.known(p.path, (r, m) => this.discard(r, m, p.unmerged)));
    router.handle('worktrees.leftovers', async () => ({ leftovers: await this.leftovers.list() }));
    router.handle('worktrees.removeLeftover', async (p) => {
      const out = await this.leftovers.remove(p);
      if (out.ok) this.o.bus.emit('worktrees.changed', { path: p.path ?? p.repo, repo: p.repo, removed: true });
      if (out.ok && p.path) this.o.onRemoved?.(p.path);
      return out;
    });
    router.handle('worktrees.setupCancel', (p) => ({ cancelled: this.setup.cancel(p.id) }));
    router.handle('worktrees.setupRuns', (p) => ({ runs: this.setup.list(p.path) }));
    return this;
  }

  private row(path: string): Row | undefined {
    return this.o.store.db.prepare('SELECT * FROM worktrees WHERE path = ?').get(path) as Row | undefined;
  }

  /** The worktree Switchboard knows at `path`, or null. */
  info(path: string): WorktreeInfo | null {
    const r = this.row(path);
    return r ? toInfo(r) : null;
  }

  /** This machine, or the SSH host `hostId` (connected first when it is not). */
  private async machine(hostId: string = LOCAL_HOST_ID): Promise<Machine> {
    if (hostId === LOCAL_HOST_ID) return { id: hostId, host: this.o.host, local: true };
    if (!this.o.remote) throw new Error(`worktrees on ${hostId} are not available here`);
    return { id: hostId, host: await this.o.remote(hostId), local: false };
  }

  /** `f` on the worktree Switchboard knows at `path`, on its machine (unknown_worktree when it knows none there). */
  async known<T>(path: string, f: (r: Row, m: Machine) => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const r = this.row(path);
    if (!r) return { ok: false, error: { kind: 'unknown_worktree', path } };
    try {
      return await f(r, await this.machine(r.host_id));
    } catch (e) {
      // A git question that failed (or was not run: see git-guard.ts) is the answer, with git's reason.
      if (e instanceof GitError) return { ok: false, error: { kind: 'git_failed', command: 'git', output: e.message, hook: null } };
      throw e;
    }
  }

  private changed(r: Row, removed = false): void {
    this.o.bus.emit('worktrees.changed', { path: r.path, repo: r.repo, removed });
  }

  private async repoOf(m: Machine, path: string): Promise<Outcome<string>> {
    try {
      return { ok: true, value: await mainCheckout(m.host, path) };
    } catch (e) {
      return { ok: false, error: { kind: 'not_a_repo', path, message: (e as Error).message.split('\n')[0] ?? '' } };
    }
  }

  private folderFor(m: Machine, repo: string): string {
    return folderOn(m, repo, this.o.settings.folder());
  }

  async list(path: string, hostId?: string): Promise<Outcome<RepoBranches>> {
    const m = await this.machine(hostId);
    const repo = await this.repoOf(m, path);
    if (!repo.ok) return repo;
    const trees = await listWorktrees(m.host, repo.value);
    const managed = new Set((this.o.store.db.prepare('SELECT path FROM worktrees WHERE repo = ? AND host_id = ?').all(repo.value, m.id) as Array<{ path: string }>).map((r) => r.path));
    const byBranch = new Map(trees.filter((w) => w.branch).map((w) => [w.branch!, w.path]));
    return {
      ok: true,
      value: {
        repo: repo.value,
        currentBranch: trees[0]?.branch ?? null,
        branches: (await branches(m.host, repo.value)).map((b) => ({ ...b, worktree: byBranch.get(b.name) ?? null })),
        worktrees: trees.map((w, i) => ({ path: w.path, branch: w.branch, head: w.head, main: i === 0, managed: managed.has(w.path) })),
        folder: this.folderFor(m, repo.value),
      },
    };
  }

  async createNew(repoPath: string, branch: string, base: string, path?: string, hostId?: string): Promise<Outcome<{ worktree: WorktreeInfo; setup: SetupRun | null }>> {
    const m = await this.machine(hostId);
    const { host } = m;
    // Asked at once: git answers them from any folder of the repository.
    const [repoOut, format, heads] = await Promise.all([
      this.repoOf(m, repoPath),
      gitOwn(host, repoPath, ['check-ref-format', '--branch', branch]).catch((e: Error) => ({ code: 1, stdout: '', output: e.message })),
      branchHeads(host, repoPath, [branch, base]).catch(() => new Map<string, { sha: string }>()),
    ]);
    const taken = heads.has(branch);
    const baseSha = heads.get(base)?.sha;
    if (!repoOut.ok) return repoOut;
    const repo = repoOut.value;
    if (format.code !== 0) return { ok: false, error: { kind: 'invalid_branch', branch, message: format.output } };
    if (taken) return { ok: false, error: { kind: 'branch_exists', branch } };
    if (!baseSha) return { ok: false, error: { kind: 'no_base', base } };

    const folder = this.folderFor(m, repo);
    // An SSH host's worktrees go beside the repository there (not inside it, nor in this machine's data folder).
    const problem = m.local ? folderProblem(folder, repo, this.o.dataDir) : null;
    if (problem) return { ok: false, error: { kind: 'outside_folder', path: path ?? folder, folder } };
    const joinOn = m.local ? join : posix.join;
    let target = path ?? joinOn(folder, folderNameFor(branch));
    if (path) {
      const [real, realFolder] = await Promise.all([realOn(m, path), realOn(m, folder)]);
      if (!isInside(real, realFolder) || real === realFolder) return { ok: false, error: { kind: 'outside_folder', path, folder } };
      if (await existsOn(m, path)) return { ok: false, error: { kind: 'path_exists', path } };
    } else {
      for (let n = 2; (await existsOn(m, target)) && n <= 1000; n++) target = joinOn(folder, `${folderNameFor(branch)}-${n}`);
    }
    // The worktree's checkout runs the repository's post-checkout hook, as `git worktree add` does for the user.
    try {
      await addWorktree(host, repo, target, branch, baseSha, { repoHooks: true });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      const hook = await installedHook(host, repo, ['post-checkout']);
      await removeWorktree(host, repo, target, branch).catch(() => deleteBranch(host, repo, branch).catch(() => undefined));
      return { ok: false, error: { kind: 'git_failed', command: 'git worktree add', output: e.stderr.trim(), hook } };
    }
    const worktree = await realOn(m, target);
    // Worktrees are known by path: one at the same path on another machine is not replaced.
    if (this.row(worktree)) {
      await removeWorktree(host, repo, target, branch).catch(() => undefined);
      return { ok: false, error: { kind: 'path_exists', path: worktree } };
    }
    const row: Row = { path: worktree, repo, branch, base, created: 1, created_at: Date.now(), host_id: m.id };
    this.insert(row);
    // The setup command of a repository's setting is this machine's: it runs for this machine's worktrees.
    const setting = this.o.settings.repo(repo);
    const setup = m.local && setting.setupCommand.trim() ? this.setup.start(worktree, setting.setupCommand, setting.setupTimeoutSeconds * 1000) : null;
    this.changed(row);
    return { ok: true, value: { worktree: toInfo(row), setup } };
  }

  /** An existing worktree of a repository (not its main checkout), on a branch, becomes a session's place. */
  async adopt(path: string, base?: string, hostId?: string): Promise<Outcome<{ worktree: WorktreeInfo; setup: SetupRun | null }>> {
    const m = await this.machine(hostId);
    const known = this.row(path);
    if (known) return known.host_id === m.id ? { ok: true, value: { worktree: toInfo(known), setup: null } } : { ok: false, error: { kind: 'path_exists', path } };
    const repoOut = await this.repoOf(m, path);
    if (!repoOut.ok) return repoOut;
    const repo = repoOut.value;
    const trees = await listWorktrees(m.host, repo);
    const real = await realOn(m, path);
    const reals = await Promise.all(trees.slice(1).map((w) => realOn(m, w.path)));
    const tree = trees.slice(1).find((_, i) => reals[i] === real);
    if (!tree) return { ok: false, error: { kind: 'not_a_repo', path, message: `${path} is not a worktree of ${repo} (its main checkout is "this folder")` } };
    if (!tree.branch) return { ok: false, error: { kind: 'invalid_branch', branch: '(detached HEAD)', message: `${path} is not on a branch` } };
    const baseName = base ?? trees[0]?.branch ?? 'main';
    if (!(await revParse(m.host, repo, `refs/heads/${baseName}`))) return { ok: false, error: { kind: 'no_base', base: baseName } };
    const row: Row = { path: tree.path, repo, branch: tree.branch, base: baseName, created: 0, created_at: Date.now(), host_id: m.id };
    this.insert(row);
    this.changed(row);
    return { ok: true, value: { worktree: toInfo(row), setup: null } };
  }

  private insert(r: Row): void {
    this.o.store.db
      .prepare('INSERT OR REPLACE INTO worktrees (path, repo, branch, base, created, created_at, host_id) VALUES (@path, @repo, @branch, @base, @created, @created_at, @host_id)')
      .run(r);
  }

  async status(r: Row, m: Machine): Promise<Outcome<WorktreeStatus>> {
    const { host } = m;
    const missing = !(await existsOn(m, r.path));
    const counts = (await revParse(host, r.repo, `refs/heads/${r.base}`)) && (await revParse(host, r.repo, `refs/heads/${r.branch}`))
      ? await aheadBehind(host, r.repo, `refs/heads/${r.base}`, `refs/heads/${r.branch}`)
      : { ahead: 0, behind: 0 };
    const files = missing ? [] : await changedFiles(host, r.path);
    const up = await upstreamOf(host, r.repo, r.branch);
    const upstream = up ? { name: up, ...(await aheadBehind(host, r.repo, up, `refs/heads/${r.branch}`)) } : null;
    return { ok: true, value: { ...toInfo(r), ...counts, files, upstream, missing } };
  }

  async commit(r: Row, m: Machine, message: string, files: string[]): Promise<Outcome<{ commit: { sha: string; subject: string } }>> {
    const { host } = m;
    for (const f of files) {
      if (f.startsWith('/') || f.split('/').includes('..')) return { ok: false, error: { kind: 'git_failed', command: 'git add', output: `${f}: not a path inside the worktree`, hook: null } };
    }
    const entries = await statusEntries(host, r.path);
    // A file gone since the list was shown (a temporary file, one the agent deleted) has nothing to add.
    const listed = new Set(entries.map((e) => e.path));
    const chosen = files.filter((f) => listed.has(f));
    if (chosen.length === 0) return { ok: false, error: { kind: 'nothing_to_commit' } };
    // A chosen file renamed in the index takes its old path into the commit: else the commit keeps the old file too.
    const from = new Map(entries.filter((e) => e.from && e.code[0] === 'R').map((e) => [e.path, e.from!]));
    const spec = chosen.join('\0') + '\0';
    const commitSpec = [...chosen, ...chosen.flatMap((f) => (from.has(f) ? [from.get(f)!] : []))].join('\0') + '\0';
    // Literal pathspecs, read from stdin: a name is a name (no glob, no magic), and no argument list too long.
    const added = await gitRun(host, r.path, ['--literal-pathspecs', 'add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: spec });
    if (added.code !== 0) return { ok: false, error: { kind: 'git_failed', command: 'git add', output: added.output, hook: null } };
    // Only the chosen files, even when others were staged before; the user's commit hooks run.
    const out = await gitRun(host, r.path, ['--literal-pathspecs', 'commit', '-m', message, '--pathspec-from-file=-', '--pathspec-file-nul'], { input: commitSpec });
    if (out.code !== 0) {
      if (/nothing to commit|no changes added to commit|nothing added to commit/.test(out.output)) return { ok: false, error: { kind: 'nothing_to_commit' } };
      return { ok: false, error: { kind: 'git_failed', command: 'git commit', output: out.output, hook: await installedHook(host, r.path, ['pre-commit', 'prepare-commit-msg', 'commit-msg']) } };
    }
    const [sha = '', subject = ''] = (await gitOwn(host, r.path, ['log', '-1', '--format=%H%x00%s'])).stdout.trim().split('\0');
    this.changed(r);
    return { ok: true, value: { commit: { sha, subject } } };
  }

  async merge(r: Row, m: Machine, strategy: MergeStrategy, message?: string): Promise<Outcome<{ base: string; head: string; strategy: MergeStrategy }>> {
    const out = await mergeIntoBase(m.host, { repo: r.repo, worktree: r.path, branch: r.branch, base: r.base }, strategy, message);
    if (out.ok) this.changed(r);
    return out;
  }

  async discardPlan(r: Row, m: Machine): Promise<Outcome<{ unmerged: Array<{ sha: string; subject: string }>; files: Array<{ path: string; code: string }> }>> {
    const { host } = m;
    const unmerged = await unmergedCommits(host, r.repo, r.base, r.branch);
    const files = (await existsOn(m, r.path)) ? await changedFiles(host, r.path) : [];
    return { ok: true, value: { unmerged, files } };
  }

  async discard(r: Row, m: Machine, confirmed: string[]): Promise<Outcome<Record<string, never>>> {
    const { host } = m;
    const plan = await this.discardPlan(r, m);
    if (!plan.ok) return plan;
    const seen = new Set(confirmed);
    if (plan.value.unmerged.some((c) => !seen.has(c.sha))) return { ok: false, error: { kind: 'changed_since_confirmation', unmerged: plan.value.unmerged } };
    await this.setup.cancelIn(r.path);
    try {
      if (await existsOn(m, r.path)) await removeWorktree(host, r.repo, r.path, r.branch, { repoHooks: true });
      else {
        await pruneWorktrees(host, r.repo);
        await deleteBranch(host, r.repo, r.branch, { repoHooks: true });
      }
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      return { ok: false, error: { kind: 'git_failed', command: 'git worktree remove', output: e.stderr.trim(), hook: null } };
    }
    this.o.store.db.prepare('DELETE FROM worktrees WHERE path = ?').run(r.path);
    this.changed(r, true);
    this.o.onRemoved?.(r.path);
    return { ok: true, value: {} };
  }

  dispose(): void {
    this.setup.dispose();
  }
}

export const repoSetting = (all: Record<string, unknown>, repo: string): RepoWorktreeSetting => repoWorktreeSettingSchema.parse(all[repo] ?? {});
