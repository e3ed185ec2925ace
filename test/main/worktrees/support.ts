import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppCore } from '../../../src/main/app-core';
import type { WorktreeOutcome } from '../../../src/shared/contract/worktrees';
import { tempDir } from '../../support/app-server';

/** Runs the real git; throws on a non-zero exit. */
export const sh = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export interface Fixture {
  core: AppCore;
  root: string;
  /** A local bare repository, the clone's `origin`. */
  origin: string;
  /** The user's main checkout (a clone of origin, on main). */
  repo: string;
  call<T>(method: string, params: unknown): Promise<T>;
  /** A worktree request whose outcome must be ok: its value. */
  ok<T>(method: string, params: unknown): Promise<T>;
  /** A worktree request whose outcome must be an error: the error. */
  fails(method: string, params: unknown): Promise<Extract<WorktreeOutcome<unknown>, { ok: false }>['error']>;
  events: Array<{ name: string; payload: unknown }>;
}

export function makeFixture(): Fixture {
  const root = tempDir('sb-wt-');
  const origin = join(root, 'origin.git');
  const repo = join(root, 'project');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  execFileSync('git', ['clone', '-q', origin, repo], { stdio: 'ignore' });
  sh(repo, 'config', 'user.name', 'Test User');
  sh(repo, 'config', 'user.email', 'test@example.test');
  sh(repo, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/app.ts'), 'export const greeting = "hello";\nexport const count = 1;\n');
  writeFileSync(join(repo, 'README.md'), '# demo\n');
  sh(repo, 'add', '-A');
  sh(repo, 'commit', '-qm', 'init');
  sh(repo, 'push', '-q', '-u', 'origin', 'main');

  const core = new AppCore({ dataDir: tempDir('sb-wt-data-'), transport: 'browser', version: 'test' });
  const events: Array<{ name: string; payload: unknown }> = [];
  core.bus.connect((name, payload) => void events.push({ name, payload }));
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const r = await core.router.invoke(method, params);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value as T;
  };
  return {
    core,
    root,
    origin,
    repo,
    events,
    call,
    async ok<T>(method: string, params: unknown): Promise<T> {
      const out = await call<WorktreeOutcome<T>>(method, params);
      if (!out.ok) throw new Error(`${method}: ${JSON.stringify(out.error)}`);
      return out.value;
    },
    async fails(method: string, params: unknown) {
      const out = await call<WorktreeOutcome<unknown>>(method, params);
      if (out.ok) throw new Error(`${method} succeeded: ${JSON.stringify(out.value)}`);
      return out.error;
    },
  };
}
