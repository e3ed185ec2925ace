// A pinned real agent placed on the test sshd's "host" (the remote user's home), for sessions that run it there.
// The installer's cache lives in the local user's home, which the remote user cannot read (as on a real host,
// where the agent is not on this disk at all): the install is hard-linked (copied where links cannot be made)
// into the remote user's ~/.cache/switchboard/test-agents, once, and kept for the next run.

import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { INSTALL_MARKER, REAL_AGENTS, agentInstallDir, type RealAgentId } from './agents.js';

export interface RemoteUser {
  home: string;
  uid: number;
  gid: number;
}

/** The agent's entry script as the remote user sees it (its install dir readable by that user). */
export function placeAgentOnHost(id: RealAgentId, user: RemoteUser): string {
  const root = join(user.home, '.cache', 'switchboard', 'test-agents');
  for (const dir of [join(user.home, '.cache'), join(user.home, '.cache', 'switchboard'), root]) {
    mkdirSync(dir, { recursive: true });
    chownSync(dir, user.uid, user.gid);
  }
  const target = join(root, basename(agentInstallDir(id)));
  if (!existsSync(join(target, INSTALL_MARKER))) {
    // A test file running beside this one may be placing it too: each builds its own copy and renames it into
    // place (atomic); a copy already in place is never replaced (an agent may be running from it).
    const staging = `${target}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    const linked = spawnSync('cp', ['-al', agentInstallDir(id), staging], { encoding: 'utf8' });
    if (linked.status !== 0) {
      rmSync(staging, { recursive: true, force: true });
      const copied = spawnSync('cp', ['-a', agentInstallDir(id), staging], { encoding: 'utf8' });
      if (copied.status !== 0) throw new Error(`could not place ${id} on the host: ${copied.stderr}`);
    }
    // Readable by the remote user (npm writes 644/755; made sure of, as links share the modes).
    spawnSync('chmod', ['-R', 'a+rX', staging]);
    try {
      renameSync(staging, target);
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(target, INSTALL_MARKER))) throw e;
    }
  }
  return join(target, REAL_AGENTS[id].entry);
}
