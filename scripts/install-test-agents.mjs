#!/usr/bin/env node
// Installs the pinned third-party ACP agents used by test/e2e/real-agents into a persistent cache, one npm prefix
// per agent: $SWITCHBOARD_AGENT_CACHE/<pkg>@<version>/ (default ~/.cache/switchboard/test-agents), with "/" of a
// scoped name replaced by "+" (e.g. @google+gemini-cli@0.61.0). An install is "complete" once its marker file
// exists; the marker is written last, after the entry point was checked, and the directory only appears under
// its final name by an atomic rename, so an interrupted run never leaves a directory that looks complete.
// Idempotent: complete installs are skipped.
//
//   node scripts/install-test-agents.mjs            install every pinned agent
//   node scripts/install-test-agents.mjs gemini     install only the named ones (ids below)
//   node scripts/install-test-agents.mjs --list     print ids, packages and install state
//   node scripts/install-test-agents.mjs --force    reinstall even when complete
//
// Install scripts: npm 11 blocks dependency lifecycle scripts unless allowed. None of these agents needs one:
// - claude-code-acp: no dependency has an install script (the bundled `claude` CLI is plain JS);
// - claude-agent-acp: the native Claude Code comes prebuilt in @anthropic-ai/claude-agent-sdk-linux-x64 (an optional
//   dependency chosen by os/cpu); nothing needs a script;
// - gemini-cli: its native modules are optional; it loads `@lydell/node-pty` (prebuilt binary in
//   @lydell/node-pty-linux-x64) before `node-pty` 1.0.0 (whose postinstall would compile), and
//   `@github/keytar` ships a prebuilt binary (its install script would only download/compile as a fallback);
// - qwen-code: `sharp`'s install script only checks for / builds a binary; the prebuilt @img/sharp-linux-x64 loads.
// So we install with --ignore-scripts: deterministic, offline-safe, and nothing runs at install time.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The pinned list is shared with the launch helpers (test/support/real-agents/), which read the same layout.
const PINNED_FILE = fileURLToPath(new URL('../test/support/real-agents/pinned-agents.json', import.meta.url));
export const PINNED_AGENTS = JSON.parse(readFileSync(PINNED_FILE, 'utf8')).agents;

export const MARKER = '.switchboard-install-complete.json';

export function agentCacheRoot() {
  const fromEnv = process.env.SWITCHBOARD_AGENT_CACHE;
  return fromEnv && fromEnv.trim() !== ''
    ? fromEnv
    : join(homedir(), '.cache', 'switchboard', 'test-agents');
}

export function installDir(agent) {
  return join(agentCacheRoot(), `${agent.pkg.replace('/', '+')}@${agent.version}`);
}

export function isComplete(agent) {
  const dir = installDir(agent);
  const marker = join(dir, MARKER);
  if (!existsSync(marker) || !existsSync(join(dir, agent.entry))) return false;
  try {
    const m = JSON.parse(readFileSync(marker, 'utf8'));
    return m.pkg === agent.pkg && m.version === agent.version;
  } catch {
    return false;
  }
}

function log(msg) {
  process.stdout.write(`[install-test-agents] ${msg}\n`);
}

function run(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    log(`$ ${cmd} ${args.join(' ')}   (in ${cwd})`);
    const child = spawn(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_update_notifier: 'false' } });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code ?? signal}`)),
    );
  });
}

async function install(agent, force) {
  const dir = installDir(agent);
  const label = `${agent.pkg}@${agent.version}`;
  if (!force && isComplete(agent)) {
    log(`${label}: already installed in ${dir} (skipping)`);
    return;
  }
  const started = Date.now();
  mkdirSync(agentCacheRoot(), { recursive: true });
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // A private package.json makes this a project-scoped install in its own prefix, isolated from the repo.
  writeFileSync(
    join(tmp, 'package.json'),
    JSON.stringify(
      { name: 'switchboard-test-agent', private: true, dependencies: { [agent.pkg]: agent.version } },
      null,
      2,
    ) + '\n',
  );
  log(`${label}: installing into ${tmp}`);
  try {
    await run(
      'npm',
      ['install', '--prefix', tmp, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', '--save-exact'],
      tmp,
    );
    if (!existsSync(join(tmp, agent.entry))) throw new Error(`entry point missing after install: ${agent.entry}`);
    writeFileSync(
      join(tmp, MARKER),
      JSON.stringify(
        { pkg: agent.pkg, version: agent.version, entry: agent.entry, installedAt: new Date().toISOString() },
        null,
        2,
      ) + '\n',
    );
    if (!force && isComplete(agent)) {
      // A concurrent run finished first: keep its copy.
      rmSync(tmp, { recursive: true, force: true });
    } else {
      rmSync(dir, { recursive: true, force: true }); // an incomplete or forced-over previous install
      renameSync(tmp, dir);
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  log(`${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s -> ${dir}`);
}

async function main() {
  const argv = process.argv.slice(2);
  const force = argv.includes('--force');
  const names = argv.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !PINNED_AGENTS.some((a) => a.id === n));
  if (unknown.length > 0) {
    log(`unknown agent id(s): ${unknown.join(', ')}; known: ${PINNED_AGENTS.map((a) => a.id).join(', ')}`);
    process.exit(2);
  }
  const selected = names.length > 0 ? PINNED_AGENTS.filter((a) => names.includes(a.id)) : PINNED_AGENTS;
  log(`cache: ${agentCacheRoot()}`);
  if (argv.includes('--list')) {
    for (const a of selected) {
      log(`${a.id}: ${a.pkg}@${a.version} ${isComplete(a) ? 'installed' : 'NOT installed'} (${installDir(a)})`);
    }
    return;
  }
  const started = Date.now();
  for (const agent of selected) await install(agent, force);
  log(`all done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// Run only as a script (the launch helpers may import the constants).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
