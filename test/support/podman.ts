/**
 * Real Podman for the container tests, configured for this kind of machine without touching its settings: a
 * containers.conf of the tests' own (runc, cgroupfs, no default ulimits: there is no CAP_SYS_RESOURCE here),
 * given through CONTAINERS_CONF. No image registry can be reached, so the images are made here: a root
 * filesystem of this machine's own programs (each with the libraries `ldd` names), imported with
 * `podman import`, once per content (the tag carries a hash of what went in).
 *
 *   const reason = podmanSkipReason();   // null where Podman can run here
 *   const env = podmanEnv();             // PATH, HOME, CONTAINERS_CONF for the engine's calls
 *   const image = testImage('node');     // 'base' (sh, coreutils, ps), 'node' (base + this machine's node), 'git' (node + git)
 *   removeTestContainers('my-test-');    // the containers of sessions whose id starts so
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const BASE_PROGRAMS = ['sh', 'cat', 'ls', 'sleep', 'env', 'id', 'uname', 'head', 'tail', 'mkdir', 'touch', 'rm', 'cp', 'grep', 'sed', 'ps', 'dd', 'wc', 'dirname', 'basename', 'mv', 'chmod', 'ln', 'tr', 'cut'];
const IMAGE_VERSION = 1;

export function podmanSkipReason(): string | null {
  if (process.platform !== 'linux') return 'the container tests run on Linux';
  if (spawnSync('podman', ['--version']).status !== 0) return 'podman is not installed (apt-get install podman runc)';
  if (process.getuid?.() !== 0) return 'the container tests run Podman as root';
  return null;
}

const CONF_TEXT = ['[containers]', 'default_ulimits = []', '', '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', ''].join('\n');
let confFile: string | null = null;

/** The environment of every engine call in the tests (one configuration file per content, shared by runs). */
export function podmanEnv(): Record<string, string> {
  if (!confFile) {
    const dir = join(tmpdir(), `switchboard-test-podman-${createHash('sha256').update(CONF_TEXT).digest('hex').slice(0, 12)}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'containers.conf');
    if (!existsSync(file)) {
      const temp = `${file}.${process.pid}`;
      writeFileSync(temp, CONF_TEXT);
      renameSync(temp, file);
    }
    confFile = file;
  }
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', CONTAINERS_CONF: confFile };
}

function podman(args: string[], input?: Buffer): string {
  return execFileSync('podman', args, { env: podmanEnv(), input, maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
}

function which(program: string): string {
  return execFileSync('/bin/sh', ['-c', 'command -v -- "$1"', 'sh', program]).toString('utf8').trim();
}

/** The files of the programs (and their libraries), by path on this machine. */
function imageFiles(kind: ImageKind): string[] {
  const programs = [...BASE_PROGRAMS.map(which), ...(kind !== 'base' ? [which('node')] : []), ...(kind === 'git' ? [which('git')] : [])];
  const files = new Set<string>(programs);
  for (const p of programs) {
    const ldd = spawnSync('ldd', [p]).stdout.toString('utf8');
    for (const m of ldd.matchAll(/(\/\S+)/g)) files.add(m[1]!);
  }
  return [...files].sort();
}

/** The image's tag, made and imported unless an image with the same content is there already. */
/** 'base': sh, coreutils, ps; 'node': and this machine's node; 'git': and its git (the main binary: status, log, diff). */
export type ImageKind = 'base' | 'node' | 'git';

export function testImage(kind: ImageKind): string {
  const files = imageFiles(kind);
  const hash = createHash('sha256').update(JSON.stringify([IMAGE_VERSION, kind, files.map((f) => [f, statSync(f).size, statSync(f).mtimeMs])])).digest('hex').slice(0, 16);
  const tag = `localhost/switchboard-test:${kind}-${hash}`;
  if (spawnSync('podman', ['image', 'exists', tag], { env: podmanEnv() }).status === 0) return tag;
  const root = mkdtempSync(join(tmpdir(), 'sb-rootfs-'));
  try {
    for (const dir of ['etc', 'tmp', 'root', 'usr/bin', 'proc', 'sys', 'dev']) mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    execFileSync('ln', ['-s', 'usr/bin', join(root, 'bin')]);
    for (const f of files) {
      // Programs go to /usr/bin (and so /bin); libraries keep their path.
      const target = f.includes('/lib') ? join(root, f) : join(root, 'usr/bin', f.split('/').pop()!);
      mkdirSync(dirname(target), { recursive: true });
      if (!existsSync(target)) copyFileSync(f, target);
      chmodSync(target, 0o755);
    }
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    writeFileSync(join(root, 'etc/os-release'), 'ID=switchboard-test\nNAME="Switchboard test image"\n');
    const tar = execFileSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 512 * 1024 * 1024 });
    podman(['import', '-q', '--change', `LABEL switchboard.test-hash=${hash}`, '-', tag], tar);
    // Images of older contents go (an image still used by a container stays).
    const older = podman(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost/switchboard-test'])
      .split('\n')
      .filter((t) => t.startsWith(`localhost/switchboard-test:${kind}-`) && t !== tag);
    for (const old of older) spawnSync('podman', ['rmi', old], { env: podmanEnv() });
    return tag;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Removes the containers of the test sessions whose id starts with `prefix`. */
export function removeTestContainers(prefix: string): void {
  const out = podman(['ps', '-a', '--filter', 'label=switchboard.managed=1', '--format', '{{.ID}} {{index .Labels "switchboard.session"}}']);
  const ids = out.split('\n').map((l) => l.trim().split(' ')).filter(([id, session]) => id && session?.startsWith(prefix)).map(([id]) => id!);
  if (ids.length > 0) podman(['rm', '-f', ...ids]);
}

/** Runs podman with the tests' configuration (for what a test does to a container from outside). */
export function podmanRun(args: string[]): string {
  return podman(args);
}
