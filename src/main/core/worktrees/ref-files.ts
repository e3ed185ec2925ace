import { isAbsolute, join } from 'node:path';
import { FsRefusal, type ConfinedFiles } from '../host/files';
import type { Host } from '../host/host';

/**
 * Branch heads read from a main checkout's own files (its loose refs, packed-refs and the worktrees' HEADs): what
 * `git for-each-ref --format=%(objectname) %(worktreepath)` says, without starting a git process. Any file that
 * does not answer for certain (a reftable repository, a `.git` file, a symbolic branch, an unreadable file) gives
 * null, and then git is asked.
 */

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const MAX_REF_BYTES = 4096;
const MAX_PACKED_BYTES = 64 * 1024 * 1024;

export type Heads = Map<string, { sha: string; checkout: string | null }>;

class Unsure extends Error {}

/** The git directory of a main checkout, as confined file access (null: not a plain `.git` folder). */
async function gitDir(host: Host, repo: string): Promise<ConfinedFiles | null> {
  try {
    return await host.files([join(repo, '.git')]);
  } catch {
    return null;
  }
}

async function read(files: ConfinedFiles, rel: string, maxBytes = MAX_REF_BYTES): Promise<string | null> {
  try {
    const got = await files.readFileIfExists(join(files.roots[0]!, rel), { maxBytes });
    return got ? got.data.toString('utf8') : null;
  } catch (e) {
    // A folder where a ref would be: the name only holds other branches (refs/heads/a for refs/heads/a/b).
    if (e instanceof FsRefusal && e.reason === 'not_regular') return null;
    throw new Unsure();
  }
}

/** The branch a HEAD file names (null: detached); Unsure for anything else. */
function headBranch(text: string | null): string | null {
  if (text === null) throw new Unsure();
  const line = text.trimEnd();
  if (SHA.test(line)) return null;
  const m = /^ref: refs\/heads\/(.+)$/.exec(line);
  // A reftable repository's HEAD names "refs/heads/.invalid", to stop readers of files like this one.
  if (!m || m[1] === '.invalid') throw new Unsure();
  return m[1]!;
}

function refSha(text: string): string {
  const line = text.trimEnd();
  if (!SHA.test(line)) throw new Unsure();
  return line;
}

const plainName = (n: string): boolean => n.length > 0 && !n.startsWith('/') && !n.split('/').some((p) => p === '' || p === '.' || p === '..') && !n.includes('\0');

/**
 * The commits the branches `names` point at in the main checkout `repo`, and the worktree each is checked out in
 * (null: none). A name that is no branch is left out. Null when the files cannot say for certain.
 */
export async function headsFromFiles(host: Host, repo: string, names: readonly string[], options: { checkouts?: readonly string[] } = {}): Promise<Heads | null> {
  if (!names.every(plainName)) return null;
  const files = await gitDir(host, repo);
  if (!files) return null;
  try {
    const [mainHead, commondir, ...loose] = await Promise.all([read(files, 'HEAD'), read(files, 'commondir'), ...names.map((n) => read(files, `refs/heads/${n}`))]);
    // A linked worktree's git folder: its refs live elsewhere.
    if (commondir !== null) return null;
    const mainBranch = headBranch(mainHead);
    const shas = new Map<string, string>();
    names.forEach((n, i) => {
      const text = loose[i];
      if (text != null) shas.set(n, refSha(text));
    });
    if (shas.size < names.length) {
      const packed = await read(files, 'packed-refs', MAX_PACKED_BYTES);
      for (const line of packed?.split('\n') ?? []) {
        if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
        const space = line.indexOf(' ');
        const ref = line.slice(space + 1);
        if (!ref.startsWith('refs/heads/')) continue;
        const name = ref.slice('refs/heads/'.length);
        if (names.includes(name) && !shas.has(name)) shas.set(name, refSha(line.slice(0, space)));
      }
    }
    const checkouts = new Map<string, string>();
    if (mainBranch !== null) checkouts.set(mainBranch, repo);
    const asked = (options.checkouts ?? names).filter((n) => shas.has(n) && !checkouts.has(n));
    if (asked.length > 0) await linkedCheckouts(files, asked, checkouts);
    const heads: Heads = new Map();
    for (const [name, sha] of shas) heads.set(name, { sha, checkout: checkouts.get(name) ?? null });
    return heads;
  } catch (e) {
    if (e instanceof Unsure) return null;
    throw e;
  }
}

/** Where the linked worktrees have these branches checked out (git keeps a folder per worktree: HEAD, gitdir). */
async function linkedCheckouts(files: ConfinedFiles, names: readonly string[], into: Map<string, string>): Promise<void> {
  let ids: string[];
  try {
    ids = (await files.listDir(join(files.roots[0]!, 'worktrees'))).filter((e) => e.kind === 'folder').map((e) => e.name);
  } catch (e) {
    if (e instanceof FsRefusal && e.reason === 'not_found') return;
    throw new Unsure();
  }
  const heads = await Promise.all(ids.map((id) => read(files, `worktrees/${id}/HEAD`)));
  await Promise.all(
    ids.map(async (id, i) => {
      // A worktree being added or removed has no HEAD for a moment.
      if (heads[i] === null) throw new Unsure();
      const branch = headBranch(heads[i]!);
      if (branch === null || !names.includes(branch)) return;
      const gitdir = (await read(files, `worktrees/${id}/gitdir`))?.trimEnd();
      if (!gitdir || !isAbsolute(gitdir)) throw new Unsure();
      into.set(branch, gitdir.replace(/\/\.git$/, ''));
    }),
  );
}
