import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppCore } from '../../../src/main/app-core';
import type { WorktreeOutcome } from '../../../src/shared/contract/worktrees';
import { tempDir } from '../../support/app-server';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';

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
  /** Adds the scenario agent (a real subprocess over stdio) under `name`: its id. */
  addAgent(name?: string, env?: Record<string, string>): Promise<string>;
  /** Sends a text prompt to a session and waits for its turn to end (its error, if any). */
  promptAndWait(sessionId: string, text: string, timeoutMs?: number): Promise<{ stopReason: string | null; error: { message: string } | null }>;
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
  const turnEnds: Array<{ promptId: string; stopReason: string | null; error: { message: string } | null }> = [];
  core.acp.sessions.onTurnEnded((t) => void turnEnds.push(t));
  return {
    core,
    root,
    async addAgent(name = 'Scenario', env = {}) {
      const { command, args } = scenarioAgentCommand();
      return (await call<{ id: string }>('agents.addCustom', { name, command, args, env, cwd: root })).id;
    },
    async promptAndWait(sessionId, text, timeoutMs = 60_000) {
      const { promptId } = await call<{ promptId: string }>('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = turnEnds.find((t) => t.promptId === promptId);
        if (end) return end;
        if (Date.now() > deadline) throw new Error(`the turn of "${text}" did not end within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
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

/** A stand-in `gh` (GitHub is the edge of the machine) that records its arguments and answers as gh does. */
export function fakeGh(signedIn: boolean): { dir: string; log: string } {
  const dir = tempDir('sb-gh-');
  const log = join(dir, 'calls.log');
  writeFileSync(
    join(dir, 'gh'),
    `#!/bin/sh
for a in "$@"; do printf '%s\\037' "$a"; done >> "${log}"; printf '\\036' >> "${log}"
case "$1 $2" in
  "auth status") ${signedIn ? 'echo "Logged in to github.com account tester"; exit 0' : 'echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1'} ;;
  "pr create") echo "Creating pull request: $4 into $3"; echo "https://github.example/acme/project/pull/42"; exit 0 ;;
esac
exit 2
`,
  );
  chmodSync(join(dir, 'gh'), 0o755);
  return { dir, log };
}

/** Each call's arguments, as the stand-in recorded them (0x1f after each argument, 0x1e after each call). */
export const ghCalls = (log: string): string[][] =>
  readFileSync(log, 'utf8')
    .split('\x1e')
    .filter(Boolean)
    .map((call) => call.split('\x1f').slice(0, -1));

