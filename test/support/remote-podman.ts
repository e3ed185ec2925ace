/**
 * Rootless Podman for the test sshd's user (test/support/sshd.ts): the same settings as the local tests'
 * (runc, cgroupfs, no default ulimits) in the user's own ~/.config/containers/containers.conf, and the test
 * images (test/support/podman.ts) copied into the user's own image store (`podman save | podman load` as
 * the user), since no registry can be reached. Run as that user with `su -` (a login environment, as ssh gives).
 *
 *   const reason = remotePodmanSkipReason();        // null where it can run here
 *   const image = prepareRemotePodman('node');      // the user's conf written, the image in the user's store
 *   remotePodman(['ps', '-a']);                     // podman run as the user
 *   removeRemoteTestContainers(sessionId);
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { podmanEnv, podmanSkipReason, testImage, type ImageKind } from './podman';
import { REMOTE_USER, sshdSkipReason } from './sshd';

const CONF_TEXT = ['[containers]', 'default_ulimits = []', '', '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', ''].join('\n');

export function remotePodmanSkipReason(): string | null {
  return podmanSkipReason() ?? sshdSkipReason() ?? (spawnSync('id', ['-u', REMOTE_USER]).status === 0 ? null : `the test user ${REMOTE_USER} does not exist yet`);
}

const shq = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/** Runs podman as the test user (its rootless store); throws with its stderr when it fails. */
export function remotePodman(args: string[], input?: Buffer): string {
  return execFileSync('su', ['-', REMOTE_USER, '-c', `podman ${args.map(shq).join(' ')}`], { input, maxBuffer: 512 * 1024 * 1024 }).toString('utf8');
}

function userIds(): { uid: number; gid: number; home: string } {
  const [, , uid = '', gid = '', , home = ''] = execFileSync('getent', ['passwd', REMOTE_USER]).toString('utf8').trim().split(':');
  return { uid: Number(uid), gid: Number(gid), home };
}

/** The user's containers.conf written and the image of `kind` in the user's store; returns its tag. */
export function prepareRemotePodman(kind: ImageKind): string {
  const { uid, gid, home } = userIds();
  for (const dir of [join(home, '.config'), join(home, '.config/containers')]) {
    mkdirSync(dir, { recursive: true });
    chownSync(dir, uid, gid);
  }
  const conf = join(home, '.config/containers/containers.conf');
  writeFileSync(conf, CONF_TEXT);
  chownSync(conf, uid, gid);
  const tag = testImage(kind);
  if (spawnSync('su', ['-', REMOTE_USER, '-c', `podman image exists ${shq(tag)}`]).status !== 0) {
    const archive = execFileSync('podman', ['save', tag], { env: podmanEnv(), maxBuffer: 1024 * 1024 * 1024 });
    remotePodman(['load', '-q'], archive);
    // Images of older contents go from the user's store (an image still used by a container stays).
    const older = remotePodman(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost/switchboard-test'])
      .split('\n')
      .filter((t) => t.startsWith(`localhost/switchboard-test:${kind}-`) && t !== tag);
    for (const old of older) spawnSync('su', ['-', REMOTE_USER, '-c', `podman rmi ${shq(old)}`]);
  }
  return tag;
}

/** Removes the test user's containers of the sessions whose id starts with `prefix`. */
export function removeRemoteTestContainers(prefix: string): void {
  const out = remotePodman(['ps', '-a', '--filter', 'label=switchboard.managed=1', '--format', '{{.ID}} {{index .Labels "switchboard.session"}}']);
  const ids = out.split('\n').map((l) => l.trim().split(' ')).filter(([id, session]) => id && session?.startsWith(prefix)).map(([id]) => id!);
  if (ids.length > 0) remotePodman(['rm', '-f', ...ids]);
}
