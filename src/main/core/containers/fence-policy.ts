/**
 * A repository cannot lower its own fence. Each setting of its devcontainer.json that would (a command run on
 * the host, extra engine arguments, host mounts, privileges, capabilities, security options, published
 * ports, build options, a build context outside the folder) is either refused or listed by name as needing
 * the user's allowance for that repository. `fencedConfig` writes the configuration the engine is given: the
 * repository's, without what is refused or not allowed, with the fence's own mounts, network and limits.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type DevcontainerJson, type RepoConfig, isRecord, str } from './devcontainer-config';
import { type GuardConfig, normalizeMount } from './engine-guard';
import { type Fence, fenceMounts, fenceRunArgs } from './fence';

export interface PolicyItem {
  /** Stable for this very value: an allowance names it, and a changed value needs a new one. */
  id: string;
  /** The setting, by its devcontainer.json name. */
  key: string;
  /** Its value, as text (bounded). */
  detail: string;
  /** What it would do to the fence. */
  why: string;
  /** `refused`: never applied; `ask`: applied only once the user allows this id for this repository. */
  verdict: 'refused' | 'ask';
}

/** Settings the spec applies outside the container or that widen what the container reaches. */
const ASK: Record<string, string> = {
  initializeCommand: 'runs on this machine, outside the container, with your rights',
  runArgs: 'passes its own arguments to the engine (they can mount, publish or privilege anything)',
  mounts: 'mounts more into the container than the session folder',
  privileged: 'gives the container every privilege of the host kernel',
  capAdd: 'adds kernel capabilities to the container',
  securityOpt: 'changes the engine\'s security options (seccomp, AppArmor, SELinux)',
  appPort: 'publishes container ports on this machine',
  'build.options': 'passes its own arguments to the image build',
};

/** Settings Switchboard sets itself (the repository's are ignored), or cannot fence at all. */
const REFUSED: Record<string, string> = {
  dockerComposeFile: 'a Docker Compose configuration can start anything: not supported in a fence',
  workspaceMount: 'Switchboard mounts the session folder itself, at its own path',
  workspaceFolder: 'the workspace is the session folder, at its own path',
};

const ENGINE_SOCKET = /(^|[/=,\s])(docker|podman)\.sock\b|\/run\/(docker|podman|containerd)\b|containerd\.sock/;

/** The settings of `config` that would lower the fence of a session in `folder`. */
export function reviewConfig(config: RepoConfig, folder: string): PolicyItem[] {
  const j = config.json;
  const items: PolicyItem[] = [];
  const add = (key: string, value: unknown, why: string, verdict: PolicyItem['verdict']) => items.push({ id: itemId(key, value), key, detail: show(value), why, verdict });
  for (const [key, why] of Object.entries(REFUSED)) if (j[key] !== undefined) add(key, j[key], why, 'refused');
  for (const [key, why] of Object.entries(ASK)) {
    const value = key === 'build.options' ? (isRecord(j.build) ? j.build.options : undefined) : j[key];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    if (ENGINE_SOCKET.test(JSON.stringify(value))) add(key, value, 'gives the container the container engine itself (root on this machine)', 'refused');
    else add(key, value, why, 'ask');
  }
  const dir = path.posix.dirname(config.file);
  const build = isRecord(j.build) ? j.build : {};
  for (const [key, value] of [['build.context', str(build.context) ?? str(j.context)], ['build.dockerfile', str(build.dockerfile) ?? str(j.dockerFile)]] as const) {
    if (value !== undefined && !inside(folder, path.posix.resolve(dir, value))) add(key, value, 'reads files of this machine outside the session folder into the image', 'refused');
  }
  return items;
}

/** The items still in the way: refused ones, and those asked for but not allowed. */
export function blockedItems(items: readonly PolicyItem[], allowed: ReadonlySet<string>): PolicyItem[] {
  return items.filter((i) => i.verdict === 'refused' || !allowed.has(i.id));
}

/**
 * The configuration given to the engine (as `--override-config`, which replaces the repository's): what the
 * policy keeps or the user allowed, then the fence. Relative paths are made absolute (the file is elsewhere).
 */
export function fencedConfig(config: RepoConfig | null, fence: Fence, allowed: ReadonlySet<string>, image?: string): DevcontainerJson {
  const out: DevcontainerJson = {};
  const items = config ? reviewConfig(config, fence.folders[0]!) : [];
  const keep = (key: string) => !items.some((i) => i.key === key && (i.verdict === 'refused' || !allowed.has(i.id)));
  if (config) {
    const dir = path.posix.dirname(config.file);
    for (const [key, value] of Object.entries(config.json)) {
      if (key in REFUSED || ((key in ASK || key === 'context' || key === 'dockerFile') && !keep(key === 'context' ? 'build.context' : key === 'dockerFile' ? 'build.dockerfile' : key))) continue;
      out[key] = value;
    }
    if (typeof out.dockerFile === 'string') out.dockerFile = path.posix.resolve(dir, out.dockerFile);
    if (typeof out.context === 'string') out.context = path.posix.resolve(dir, out.context);
    if (isRecord(config.json.build)) {
      const build: Record<string, unknown> = { ...config.json.build };
      if (!keep('build.options')) delete build.options;
      if (!keep('build.context')) delete build.context;
      if (!keep('build.dockerfile')) delete build.dockerfile;
      if (typeof build.dockerfile === 'string') build.dockerfile = path.posix.resolve(dir, build.dockerfile);
      if (typeof build.context === 'string') build.context = path.posix.resolve(dir, build.context);
      else if (typeof build.dockerfile === 'string') build.context = dir;
      out.build = build;
    }
  }
  if (image !== undefined) out.image = image;
  const [folder, ...more] = fence.folders;
  out.workspaceMount = fenceMounts(fence)[0];
  out.workspaceFolder = folder;
  const allowedMounts = Array.isArray(out.mounts) ? out.mounts : [];
  out.mounts = [...allowedMounts, ...fenceMounts({ ...fence, folders: more })];
  out.runArgs = [...(Array.isArray(out.runArgs) ? out.runArgs.map(String) : []), ...fenceRunArgs(fence)];
  return out;
}

/** What the engine guard lets through for this session: the fence, and what the user allowed of the repository's. */
export function guardConfig(config: RepoConfig | null, fence: Fence, allowed: ReadonlySet<string>, engine: string): GuardConfig {
  const j = config?.json ?? {};
  const items = config ? reviewConfig(config, fence.folders[0]!) : [];
  const granted = (key: string) => items.some((i) => i.key === key && i.verdict === 'ask' && allowed.has(i.id));
  const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  const buildOptions = isRecord(j.build) ? j.build.options : undefined;
  return {
    engine,
    mounts: [...fenceMounts(fence), ...(granted('mounts') && Array.isArray(j.mounts) ? j.mounts : [])].map(normalizeMount),
    network: fence.network === 'full' ? null : 'none',
    privileged: granted('privileged') && j.privileged === true,
    capAdd: granted('capAdd') ? strings(j.capAdd) : [],
    securityOpt: granted('securityOpt') ? strings(j.securityOpt) : [],
    extra: [...(granted('runArgs') ? strings(j.runArgs) : []), ...(granted('build.options') ? strings(buildOptions) : [])],
  };
}

function inside(folder: string, p: string): boolean {
  const rel = path.posix.relative(folder, p);
  return rel === '' || (!rel.startsWith('..') && !path.posix.isAbsolute(rel));
}

function itemId(key: string, value: unknown): string {
  return `${key}:${createHash('sha256').update(JSON.stringify(value) ?? 'undefined').digest('hex').slice(0, 16)}`;
}

function show(value: unknown): string {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
