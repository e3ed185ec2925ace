import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LeftoverWorktree } from '../../../shared/contract/worktrees';
import type { StoreService } from '../store/store-service';
import type { Host } from '../host/host';
import { isInside, realish } from './folder';
import { GitError } from './git';
import type { Outcome } from './publish';
import { branches, changedFiles, commitsOnlyOn, listWorktrees, revParse, unmergedCommits } from './repo-git';
import { deleteBranch, pruneWorktrees, removeWorktreeFolder } from './worktree-git';

/** The branches an earlier compare mode made, one per run (its worktrees were in the data folder). */
const OLD_COMPARE_BRANCH = 'switchboard/compare-';

export interface LeftoverOptions {
  host: Host;
  store: StoreService;
  dataDir: string;
  /** The folders open sessions work in (their own and their additional ones). */
  openFolders(): string[];
}

interface Candidate {
  repo: string;
  path: string | null;
  branch: string | null;
  origin: LeftoverWorktree['origin'];
  /** The branch it would be merged into (null: none known, so what is on no other branch counts). */
  base: string | null;
  /** Its row among the worktrees Switchboard knows (null: none). */
  recorded: string | null;
  /** git lists it as a worktree of the repository. */
  known: boolean;
}

/**
 * The worktrees Switchboard made that no open session works in (worktree sessions', compare runs', and those an
 * earlier compare mode left in users' repositories), and their removal once the user has seen what it loses.
 */
export class Leftovers {
  constructor(private readonly o: LeftoverOptions) {}

  async list(): Promise<LeftoverWorktree[]> {
    const found = await this.candidates();
    const out: LeftoverWorktree[] = [];
    // A few at a time: each asks git for its commits and its status.
    for (let i = 0; i < found.length; i += 4) out.push(...(await Promise.all(found.slice(i, i + 4).map((c) => this.describe(c)))));
    return out;
  }

  async remove(p: { repo: string; path: string | null; branch: string | null; unmerged: string[]; files: string[] }): Promise<Outcome<Record<string, never>>> {
    const { host } = this.o;
    const c = (await this.candidates([p.repo])).find((x) => x.path === p.path && x.branch === p.branch);
    if (!c) return { ok: false, error: { kind: 'unknown_worktree', path: p.path ?? p.branch ?? p.repo } };
    const now = await this.describe(c);
    // What it would lose is unknown: nothing is removed on a confirmation that could not list it.
    if (now.problem) return { ok: false, error: { kind: 'git_failed', command: 'git status', output: now.problem, hook: null } };
    const shas = new Set(p.unmerged);
    const files = new Set(p.files);
    if (now.unmerged.some((x) => !shas.has(x.sha)) || now.files.some((f) => !files.has(f.path))) {
      return { ok: false, error: { kind: 'changed_since_confirmation', unmerged: now.unmerged, files: now.files } };
    }
    try {
      if (c.path && !now.missing) await removeWorktreeFolder(host, c.repo, c.path, { repoHooks: true });
      else if (c.path && c.known) await pruneWorktrees(host, c.repo);
      if (c.branch) await deleteBranch(host, c.repo, c.branch, { repoHooks: true });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      return { ok: false, error: { kind: 'git_failed', command: c.path ? 'git worktree remove' : 'git branch -D', output: e.stderr.trim(), hook: null } };
    }
    if (c.recorded) this.o.store.db.prepare('DELETE FROM worktrees WHERE path = ?').run(c.recorded);
    return { ok: true, value: {} };
  }

  /**
   * What removing it loses. A part git cannot answer (a folder that is no longer a repository, a damaged branch)
   * is this one's `problem`, never the whole list's failure.
   */
  private async describe(c: Candidate): Promise<LeftoverWorktree> {
    const { host } = this.o;
    const missing = c.path !== null && (!c.known || !existsSync(c.path));
    const problems: string[] = [];
    const read = <T>(what: string, f: () => Promise<T>, none: T): Promise<T> =>
      f().catch((e: unknown) => {
        if (!(e instanceof Error)) throw e;
        problems.push(`${what}: ${e.message.split('\n')[0]!.slice(0, 500)}`);
        return none;
      });
    const [unmerged, files] = await Promise.all([
      read('its commits', async () => {
        const hasBranch = c.branch !== null && (await revParse(host, c.repo, `refs/heads/${c.branch}`)) !== null;
        const baseKnown = c.base !== null && (await revParse(host, c.repo, `refs/heads/${c.base}`)) !== null;
        return !hasBranch ? [] : baseKnown ? unmergedCommits(host, c.repo, c.base!, c.branch!) : commitsOnlyOn(host, c.repo, c.branch!);
      }, []),
      c.path && !missing ? read('its folder', () => changedFiles(host, c.path!, 'normal'), []) : [],
    ]);
    return { repo: c.repo, path: c.path, branch: c.branch, origin: c.origin, missing, unmerged, files, ...(problems.length ? { problem: problems.join('; ') } : {}) };
  }

  /** What Switchboard made in the repositories it made worktrees or comparisons in (or in those of them named). */
  private async candidates(only?: readonly string[]): Promise<Candidate[]> {
    const db = this.o.store.db;
    const open = this.o.openFolders().map(realish);
    const inUse = (path: string) => {
      const real = realish(path);
      return open.some((f) => isInside(f, real));
    };
    const rows = db.prepare("SELECT path, repo, branch, base FROM worktrees WHERE created = 1 AND host_id = 'local'").all() as Array<{ path: string; repo: string; branch: string; base: string }>;
    const compareRuns = new Set((db.prepare('SELECT worktree FROM compare_runs').all() as Array<{ worktree: string }>).map((r) => r.worktree));
    const known = [...new Set([...rows.map((r) => r.repo), ...(db.prepare('SELECT DISTINCT repo FROM compares').all() as Array<{ repo: string }>).map((r) => r.repo)])];
    const repos = only ? known.filter((r) => only.includes(r)) : known;
    const oldFolder = realish(join(this.o.dataDir, 'worktrees'));
    const found: Candidate[] = [];
    for (const repo of repos) {
      if (!existsSync(repo)) continue;
      let trees: Awaited<ReturnType<typeof listWorktrees>>;
      let names: string[];
      try {
        [trees, names] = await Promise.all([listWorktrees(this.o.host, repo), branches(this.o.host, repo).then((b) => b.map((x) => x.name))]);
      } catch {
        continue;
      }
      // git's own list is the truth: a recorded worktree git no longer knows is only its branch.
      const byPath = new Map(trees.slice(1).map((w) => [w.path, w]));
      const seen = new Set<string>();
      for (const r of rows.filter((x) => x.repo === repo)) {
        const tree = byPath.get(r.path);
        if (inUse(r.path)) continue;
        seen.add(r.path);
        found.push({ repo, path: r.path, branch: names.includes(r.branch) ? r.branch : null, origin: compareRuns.has(r.path) ? 'compare' : 'session', base: r.base, recorded: r.path, known: tree !== undefined });
      }
      const checkedOut = new Set<string>();
      for (const w of trees.slice(1)) {
        if (w.branch) checkedOut.add(w.branch);
        if (seen.has(w.path)) continue;
        const old = w.branch?.startsWith(OLD_COMPARE_BRANCH) || isInside(realish(w.path), oldFolder);
        if (!old || inUse(w.path)) continue;
        found.push({ repo, path: w.path, branch: w.branch, origin: 'old_compare', base: null, recorded: null, known: true });
      }
      for (const name of names) {
        if (name.startsWith(OLD_COMPARE_BRANCH) && !checkedOut.has(name)) found.push({ repo, path: null, branch: name, origin: 'old_compare', base: null, recorded: null, known: false });
      }
    }
    return found;
  }
}
