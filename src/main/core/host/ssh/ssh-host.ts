/**
 * An SSH host: the `Host` port over the user's own OpenSSH (their ~/.ssh/config, ssh-agent, known_hosts),
 * with a small helper copied to the host that runs the work there.
 *
 *   const host = new SshHost({ id, destination: 'devbox', runtimeDir })   // nothing happens yet
 *   const r = await host.connect((step) => …)    → { ok: true, info } | { ok: false, failure }
 *       steps: 'resolving' (ssh -G) → 'authenticating' (the ControlMaster) → 'preparing' (node, git, the helper)
 *       failure.reason: 'unreachable' (within 15 s) | 'auth' | 'host_key_unknown' (failure.hostKey: its
 *       fingerprints) | 'host_key_changed' (failure.message: OpenSSH's own warning) | 'node_missing' |
 *       'git_missing' | 'helper' | 'config'; failure.message is a sentence for the user.
 *   await host.acceptHostKey(failure.hostKey)     appends the key shown to known_hosts; then connect again
 *   host.state / host.onState(listener)           idle | connecting(step) | connected(info) | reconnecting(attempt) | failed(failure) | closed
 *   host.spawn / openPty / files / git / listFiles / watch   the Host port, on the host (see ../host.ts)
 *   await host.dispose()                          stops the host's processes, ends the connection
 *   host.info                                     { home, user, platform, arch, node, shell } once connected
 *   await listSshAliases()                        (./ssh-config.ts) the aliases of ~/.ssh/config, for the hosts list
 *
 * How: one ControlMaster per host (`ssh -fN -o ControlMaster=yes`, its socket in `runtimeDir`, which must be
 * a short path) carries every ssh run: the checks, the helper's upload, and one long session running the
 * helper's proxy, which joins the helper's daemon on the host (a Unix socket; nothing listens on a network
 * port). The daemon owns the processes, so they outlive a dropped connection for `graceMs` (default 10
 * minutes); the host reconnects with backoff and the daemon replays what they wrote meanwhile, in order,
 * once. The helper lives in ~/.switchboard-server/<version>/ on the host, its copy checked against its hash
 * before it runs (a version folder no Switchboard connected with for a week is removed when another is
 * installed; nothing else there is: see helper-install.ts).
 *
 * A process's `env` is applied over the host's own environment; the machine's variables (HOME, PATH, USER…,
 * see protocol.ts MACHINE_ENV) passed through unchanged from this machine are the host's instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { toDisposable, type Disposable } from '../../base/lifecycle';
import type { ConfinedFiles } from '../files';
import type { FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host';
import { Channel, type ChannelStream, type ChannelWatch } from './channel';
import { helperBundle } from './helper-bundle';
import { installScript, probeScript } from './helper-install';
import { acceptHostKey, resolvedConfig, scanHostKey, type UnknownHostKey } from './host-keys';
import { MACHINE_ENV, specKey, type LeftProc, type StartSpec } from './protocol';
import { RemoteFiles } from './remote-files';
import { RemoteProcess, RemotePty, type StreamLink } from './remote-process';
import { classifySshError, runSsh, shq, SSH, sshArgs, sshSays, type SshFailureReason, type SshTarget } from './ssh-command';

export type { UnknownHostKey } from './host-keys';
export type { SshFailureReason } from './ssh-command';

export interface SshHostConfig {
  /** The host's id in Switchboard (sessions name it). */
  id: string;
  /** An alias from ~/.ssh/config, or [user@]host. */
  destination: string;
  port?: number;
  identityFile?: string;
  /** An ssh_config used instead of ~/.ssh/config (`ssh -F`; tests give their own). */
  configFile?: string;
  /** A known_hosts file used instead of the user's. */
  knownHostsFile?: string;
  /** A folder of Switchboard's own for the ControlMaster socket. Keep it short: a Unix socket path has ~100 bytes. */
  runtimeDir: string;
  /** The host's node: a command on its PATH or an absolute path. Default 'node'. */
  nodeCommand?: string;
  /** How long the host's processes outlive a lost connection. Default 10 minutes. */
  graceMs?: number;
  /** Names this Switchboard's helper daemon on the host (default: from this machine and `runtimeDir`). */
  instance?: string;
  /** Seconds a TCP connection may take. Default 10 (every connect step fails within 15 s). */
  connectTimeoutS?: number;
  /** How long the helper may take to start and to say what the host is. Default 20 s. */
  helperTimeoutMs?: number;
}

/** What the host is (from its helper). */
export interface SshHostInfo {
  home: string;
  user: string;
  /** Node's names: 'linux', 'darwin'… and 'x64', 'arm64'… (the registry picks the host's archive by them). */
  platform: string;
  arch: string;
  node: string;
  shell: string;
}

export type SshConnectStep = 'resolving' | 'authenticating' | 'preparing';

export interface SshFailure {
  reason: SshFailureReason;
  /** A sentence for the user (for a changed host key: OpenSSH's own warning). */
  message: string;
  /** reason 'host_key_unknown': the key the host presents, for the user to accept or not. */
  hostKey?: UnknownHostKey;
}

export type SshConnectResult = { ok: true; info: SshHostInfo } | { ok: false; failure: SshFailure };

export type SshHostState =
  | { kind: 'idle' }
  | { kind: 'connecting'; step: SshConnectStep }
  | { kind: 'connected'; info: SshHostInfo }
  | { kind: 'reconnecting'; attempt: number; lastError: string | null }
  | { kind: 'failed'; failure: SshFailure }
  | { kind: 'closed' };

const DEFAULT_GRACE_MS = 10 * 60 * 1000;
/** Failures that retrying will not mend: the user has to act. */
const FINAL: ReadonlySet<SshFailureReason> = new Set(['auth', 'host_key_unknown', 'host_key_changed', 'node_missing', 'git_missing', 'config']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class SshHost implements Host, Disposable {
  readonly id: string;
  private readonly target: SshTarget;
  private readonly node: string;
  private readonly graceMs: number;
  private readonly helperTimeoutMs: number;
  private readonly instance: string;
  private readonly streamPrefix = randomBytes(4).toString('hex');
  private nextStream = 1;
  private nextWatch = 1;
  private readonly streams = new Map<string, ChannelStream & { lost(why: string): void }>();
  private readonly watches = new Map<number, ChannelWatch>();
  /** Processes a previous Switchboard (same instance) left on the host, by their spec: a spawn of the same takes one back. */
  private readonly left = new Map<string, LeftProc[]>();
  private channel: Channel | null = null;
  private connecting: Promise<SshConnectResult> | null = null;
  private everConnected = false;
  private closed = false;
  private current: SshHostState = { kind: 'idle' };
  private readonly listeners = new Set<(s: SshHostState) => void>();
  private readonly link: StreamLink = {
    send: (msg) => this.channel?.send(msg),
    isUp: () => this.channel?.isUp === true,
    release: (id) => void this.streams.delete(id),
  };
  info: SshHostInfo | null = null;
  /** The jump host(s) `ssh -G` says the host is reached through (ProxyJump), or null. */
  private jump: string | null = null;

  constructor(private readonly config: SshHostConfig) {
    this.id = config.id;
    mkdirSync(config.runtimeDir, { recursive: true, mode: 0o700 });
    const key = createHash('sha256').update(`${config.id}\0${config.destination}\0${config.port ?? ''}`).digest('hex').slice(0, 12);
    this.target = {
      destination: config.destination,
      ...(config.port ? { port: config.port } : {}),
      ...(config.identityFile ? { identityFile: config.identityFile } : {}),
      ...(config.configFile ? { configFile: config.configFile } : {}),
      ...(config.knownHostsFile ? { knownHostsFile: config.knownHostsFile } : {}),
      controlPath: join(config.runtimeDir, `cm-${key}`),
      connectTimeoutS: config.connectTimeoutS ?? 10,
    };
    this.node = config.nodeCommand ?? 'node';
    this.graceMs = config.graceMs ?? DEFAULT_GRACE_MS;
    this.helperTimeoutMs = config.helperTimeoutMs ?? 20_000;
    this.instance = config.instance ?? hostInstance(config.runtimeDir, config.id);
  }

  get state(): SshHostState {
    return this.current;
  }

  isConnected(): boolean {
    return this.channel?.isUp === true;
  }

  onState(listener: (s: SshHostState) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => void this.listeners.delete(listener));
  }

  private setState(s: SshHostState): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }

  /** Connects (or says why not); a second call while one runs joins it. Connected already: resolves at once. */
  connect(onStep?: (step: SshConnectStep) => void): Promise<SshConnectResult> {
    if (this.closed) return Promise.resolve({ ok: false, failure: { reason: 'config', message: `the host ${this.config.destination} was closed` } });
    if (this.channel?.isUp && this.info) return Promise.resolve({ ok: true, info: this.info });
    this.connecting ??= this.attempt(onStep, false).finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** Appends a host key the user accepted (as `connect` showed it) to known_hosts. */
  acceptHostKey(key: UnknownHostKey): Promise<void> {
    return acceptHostKey(key);
  }

  private async attempt(onStep: ((step: SshConnectStep) => void) | undefined, reconnecting: boolean): Promise<SshConnectResult> {
    const step = (s: SshConnectStep): void => {
      onStep?.(s);
      if (!reconnecting) this.setState({ kind: 'connecting', step: s });
    };
    const fail = (failure: SshFailure): SshConnectResult => {
      if (!reconnecting || FINAL.has(failure.reason)) this.setState({ kind: 'failed', failure });
      return { ok: false, failure };
    };
    const dest = this.config.destination;
    try {
      step('resolving');
      try {
        const jump = (await resolvedConfig(this.target)).get('proxyjump');
        this.jump = jump && jump !== 'none' ? jump : null;
      } catch (e) {
        return fail({ reason: 'config', message: `ssh cannot use the settings for ${dest}: ${sshSays(messageOf(e))}` });
      }
      step('authenticating');
      const master = await this.ensureMaster();
      if (master) return fail(master);
      step('preparing');
      const prepared = await this.prepareHelper();
      if (prepared) {
        await this.closeMaster();
        return fail(prepared);
      }
      const channel = new Channel(this.streams, this.watches, () => `the connection to ${dest} was lost`, (left) => this.onLeft(left));
      const bundle = await helperBundle();
      const remote = `exec "$N" "$HOME/.switchboard-server/${bundle.version}/server.cjs" proxy ${this.instance} ${Math.round(this.graceMs)}`;
      // The streams resend what was lost as the welcome comes in, through this channel.
      this.channel = channel;
      try {
        await channel.open(SSH, sshArgs(this.target, ['-o', 'ControlMaster=no', '-T'], `sh -c ${shq(`N=${shq(this.node)}; ${remote}`)}`), this.helperTimeoutMs, !this.everConnected);
      } catch (e) {
        if (this.channel === channel) this.channel = null;
        if (!reconnecting) await this.closeMaster();
        return fail({ reason: 'helper', message: `Switchboard's helper on ${dest} did not start: ${sshSays(messageOf(e))}` });
      }
      this.everConnected = true;
      let info: SshHostInfo;
      try {
        info = hostInfo(await withTimeout(channel.request('info', {}), this.helperTimeoutMs, `the helper did not answer within ${Math.round(this.helperTimeoutMs / 1000)} s`));
      } catch (e) {
        channel.kill();
        if (this.channel === channel) this.channel = null;
        if (!reconnecting) await this.closeMaster();
        return fail({ reason: 'helper', message: `Switchboard's helper on ${dest} did not start: ${messageOf(e)}` });
      }
      this.info = info;
      if (reconnecting) this.rewatch();
      void channel.down.then(() => this.onDown(channel));
      this.setState({ kind: 'connected', info: this.info });
      return { ok: true, info: this.info };
    } catch (e) {
      return fail({ reason: 'helper', message: `connecting to ${dest} failed: ${messageOf(e)}` });
    }
  }

  /** The ControlMaster, running (null) or why it could not be started. */
  private async ensureMaster(): Promise<SshFailure | null> {
    const check = await runSsh(sshArgs(this.target, ['-O', 'check']), { timeoutMs: 5000 });
    if (check.code === 0) return null;
    // A master that died (killed, or its network gone) leaves its socket behind; a new master would then
    // run without multiplexing ("already exists, disabling multiplexing").
    await unlink(this.target.controlPath).catch(() => undefined);
    const persist = Math.max(60, Math.round(this.graceMs / 1000));
    const r = await runSsh(sshArgs(this.target, ['-o', 'ControlMaster=yes', '-o', `ControlPersist=${persist}`, '-f', '-N']), { timeoutMs: (this.target.connectTimeoutS + 4) * 1000 });
    if (r.code === 0 && !r.timedOut) return null;
    const dest = this.config.destination;
    if (r.timedOut) return { reason: 'unreachable', message: `${dest} did not answer within ${this.target.connectTimeoutS + 4} s` };
    const reason = classifySshError(r.stderr) ?? 'unreachable';
    if (reason === 'unreachable' && this.jump) {
      const why = await this.jumpFailure(dest, this.jump);
      if (why) return why;
    }
    switch (reason) {
      case 'host_key_changed':
        return { reason, message: r.stderr.trim() };
      case 'host_key_unknown':
        try {
          const hostKey = await scanHostKey(this.target);
          return { reason, hostKey, message: `${dest} presents a host key that is not known yet (${hostKey.fingerprints.join('; ')}). Accept it only if it is the host's.` };
        } catch (e) {
          return { reason, message: `${dest}'s host key is not known, and could not be read: ${messageOf(e)}` };
        }
      case 'auth':
        return { reason, message: `${dest} refused the authentication (${sshSays(r.stderr)}). Switchboard uses your ssh keys and ssh-agent and never prompts: check that "ssh ${dest}" logs in without a password.` };
      case 'config':
        return { reason, message: `ssh cannot use the settings for ${dest}: ${sshSays(r.stderr)}` };
      default:
        return { reason: 'unreachable', message: `${dest} cannot be reached: ${sshSays(r.stderr)}` };
    }
  }

  /**
   * Why the jump host failed, when it did. A ControlMaster that persists sends its jump's ssh's stderr to
   * /dev/null, so the jump's own words (an unknown or changed key, a refused login) come from a plain run.
   */
  private async jumpFailure(dest: string, jump: string): Promise<SshFailure | null> {
    const r = await runSsh(sshArgs({ ...this.target, controlPath: 'none' }, ['-o', 'ControlMaster=no', '-T'], 'true'), { timeoutMs: (this.target.connectTimeoutS + 4) * 1000 });
    switch (r.timedOut || r.code === 0 ? null : classifySshError(r.stderr)) {
      case 'host_key_unknown':
        // No key to accept here: it is the jump host's, accepted by connecting to it.
        return { reason: 'host_key_unknown', message: `${dest} is reached through ${jump}, whose host key is not in your known_hosts yet: connect to ${jump} once (Settings → Hosts, or "ssh ${jump}") and accept its key, then connect again.` };
      case 'host_key_changed':
        return { reason: 'host_key_changed', message: r.stderr.trim() };
      case 'auth':
        return { reason: 'auth', message: `${jump}, the jump host to ${dest}, refused the authentication (${sshSays(r.stderr)}). Switchboard uses your ssh keys and ssh-agent and never prompts: check that "ssh ${jump}" logs in without a password.` };
      default:
        return null;
    }
  }

  /** Checks node and git on the host and copies the helper there when its version is not there yet. */
  private async prepareHelper(): Promise<SshFailure | null> {
    const dest = this.config.destination;
    const bundle = await helperBundle();
    const viaMaster = (extra: string[], script: string) => sshArgs(this.target, ['-o', 'ControlMaster=no', '-T', ...extra], `sh -c ${shq(script)}`);
    const probe = probeScript(this.node, bundle.version);
    const r = await runSsh(viaMaster([], probe), { timeoutMs: 20_000 });
    const out = r.stdout.toString('utf8');
    if (r.code !== 0 || !out.includes('SB:')) return { reason: 'helper', message: `checking ${dest} failed: ${sshSays(r.stderr)}` };
    if (out.includes('SB:no-node')) {
      return { reason: 'node_missing', message: `node is missing on ${dest}: "${this.node}" is not found there (agents and Switchboard's helper need Node.js 18 or later). Install it, or set the path of the host's node.` };
    }
    const version = /SB:node v(\d+)\S*/.exec(out);
    if (!version || Number(version[1]) < 18) {
      return { reason: 'node_missing', message: `node on ${dest} cannot run Switchboard's helper (it says "${/SB:node (.*)/.exec(out)?.[1] ?? ''}"; Node.js 18 or later is needed)` };
    }
    if (out.includes('SB:no-git')) return { reason: 'git_missing', message: `git is missing on ${dest}: install it there (checkpoints and reviews run git on the host)` };
    if (out.includes('SB:need')) {
      const install = installScript(this.node, bundle.version);
      const up = await runSsh(viaMaster([], install), { input: bundle.source, timeoutMs: 60_000 });
      if (up.code !== 0) return { reason: 'helper', message: `copying Switchboard's helper to ${dest} failed: ${sshSays(up.stderr)}` };
    }
    return null;
  }

  private onDown(channel: Channel): void {
    if (this.channel !== channel) return;
    this.channel = null;
    if (this.closed) return;
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    let lastError: string | null = null;
    for (let attempt = 1; !this.closed; attempt++) {
      if (this.channel?.isUp) return;
      if (this.connecting) {
        await this.connecting;
        continue;
      }
      this.setState({ kind: 'reconnecting', attempt, lastError });
      this.connecting = this.attempt(undefined, true).finally(() => (this.connecting = null));
      const r = await this.connecting;
      if (r.ok || this.closed) return;
      if (FINAL.has(r.failure.reason)) return;
      lastError = r.failure.message;
      await sleep(Math.min(250 * 2 ** (attempt - 1), 5000));
    }
  }

  /** After a reconnect: watches start again on the host, and say that changes may have been missed. */
  private rewatch(): void {
    for (const [w, watch] of this.watches) {
      watch.onEvent({ kind: 'rescan', reason: 'the connection to the host was lost for a while' } satisfies WatchEvent);
      this.channel?.request('watch', { w, root: watch.root, ignore: watch.ignore }).catch((e: unknown) => watch.onEvent({ kind: 'rescan', reason: messageOf(e) }));
    }
  }

  private async closeMaster(): Promise<void> {
    await runSsh(sshArgs(this.target, ['-O', 'exit']), { timeoutMs: 5000 });
  }

  /** The ControlMaster's process id on this machine (null when none runs): for diagnostics and tests. */
  async masterPid(): Promise<number | null> {
    const r = await runSsh(sshArgs(this.target, ['-O', 'check']), { timeoutMs: 5000 });
    const m = /pid=(\d+)/.exec(r.stderr);
    return r.code === 0 && m ? Number(m[1]) : null;
  }

  private startSpec(kind: StartSpec['kind'], argv: readonly string[], env: Record<string, string>): Pick<StartSpec, 'kind' | 'argv' | 'env'> {
    if (argv.length === 0) throw new Error('nothing to run: the command line is empty');
    return { kind, argv: [...argv], env: hostEnv(env) };
  }

  private stream<T extends ChannelStream & { lost(why: string): void }>(make: (id: string) => T): T {
    const id = `${this.streamPrefix}-${this.nextStream++}`;
    const s = make(id);
    if (this.closed || !this.everConnected || this.current.kind === 'failed') {
      s.lost(this.closed ? `the host ${this.config.destination} was closed` : `not connected to ${this.config.destination}`);
    } else {
      this.streams.set(id, s);
    }
    return s;
  }

  spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    const spec: StartSpec = { ...this.startSpec('spawn', argv, options.env), ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.stdin ? { stdin: options.stdin } : {}) };
    const key = specKey(spec);
    const left = this.channel?.isUp ? this.left.get(key)?.shift() : undefined;
    if (this.left.get(key)?.length === 0) this.left.delete(key);
    if (left) {
      // The same command a previous Switchboard left running here (an agent that went on after it was killed).
      const proc = new RemoteProcess(left.p, spec, this.link, { pid: left.pid, in: left.in });
      this.streams.set(left.p, proc);
      return proc;
    }
    return this.stream((id) => new RemoteProcess(id, spec, this.link));
  }

  private onLeft(left: readonly LeftProc[]): void {
    this.left.clear();
    for (const l of left) {
      if (l.spec.kind !== 'spawn' || this.streams.has(l.p)) continue;
      const key = specKey(l.spec);
      this.left.set(key, [...(this.left.get(key) ?? []), l]);
    }
  }

  openPty(argv: readonly string[], options: PtyOptions): HostPty {
    // As node-pty does locally: a terminal says what it is.
    const spec: StartSpec = { ...this.startSpec('pty', argv, { TERM: 'xterm-256color', ...options.env }), cwd: options.cwd, cols: options.cols, rows: options.rows };
    return this.stream((id) => new RemotePty(id, spec, this.link));
  }

  private request(op: string, a: unknown, onNote?: (v: unknown) => void): Promise<unknown> {
    if (!this.channel) return Promise.reject(new Error(this.everConnected ? `the connection to ${this.config.destination} is lost; reconnecting` : `not connected to ${this.config.destination}`));
    return this.channel.request(op, a, onNote);
  }

  async files(roots: readonly string[]): Promise<ConfinedFiles> {
    const real = (await this.request('fsOpen', { roots: [...roots] })) as string[];
    return new RemoteFiles(real, (r, m, args) => this.request('fs', { roots: [...r], m, args }));
  }

  async git(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
    const { env, ...rest } = options;
    return (await this.request('git', { args: [...args], options: { ...rest, ...(env ? { env: hostEnv(env) } : {}) } })) as GitResult;
  }

  helperCall(service: string, args: unknown, onNote?: (note: unknown) => void): Promise<unknown> {
    return this.request(service, args, onNote);
  }

  async listFiles(root: string, options: ListFilesOptions): Promise<FileList> {
    return (await this.request('list', { root, options: { maxFiles: options.maxFiles, maxDepth: options.maxDepth, ...(options.skipDirs ? { skipDirs: [...options.skipDirs] } : {}) } })) as FileList;
  }

  async watch(root: string, onEvent: (event: WatchEvent) => void, options: WatchOptions = {}): Promise<Disposable> {
    const w = this.nextWatch++;
    const watch: ChannelWatch = { root, ignore: [...(options.ignore ?? [])], onEvent: (ev) => onEvent(ev as WatchEvent) };
    // Listening before it starts: events may follow the answer in the same read, before this resumes.
    this.watches.set(w, watch);
    try {
      await this.request('watch', { w, root, ignore: watch.ignore });
    } catch (e) {
      this.watches.delete(w);
      throw e;
    }
    return toDisposable(async () => {
      if (!this.watches.delete(w)) return;
      await this.channel?.request('unwatch', { w }).catch(() => undefined);
    });
  }

  /** Quitting: the host's processes are stopped, the helper's daemon exits, the ControlMaster closes. */
  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const channel = this.channel;
    if (channel?.isUp) await Promise.race([channel.request('shutdown', {}).catch(() => undefined), sleep(5000)]);
    channel?.kill();
    this.channel = null;
    for (const s of [...this.streams.values()]) s.lost(`the host ${this.config.destination} was closed`);
    this.streams.clear();
    this.watches.clear();
    await this.closeMaster();
    this.setState({ kind: 'closed' });
  }
}

/**
 * The name of this Switchboard's helper daemon on a host: the same for the same machine, `place` (a folder
 * of Switchboard's own that outlives it, e.g. its data folder) and host, so that Switchboard started again
 * joins the daemon it left (and reclaims what runs there).
 */
export function hostInstance(place: string, hostId: string): string {
  return createHash('sha256').update(`${hostname()}\0${place}\0${hostId}`).digest('hex').slice(0, 12);
}

/** What the helper says the host is, checked: short strings only (it is shown and used in commands). */
function hostInfo(v: unknown): SshHostInfo {
  const o = (v ?? {}) as Record<string, unknown>;
  const text = (k: string): string => {
    const x = o[k];
    if (typeof x !== 'string' || x.length > 4096) throw new Error(`the helper's answer has no valid ${k}`);
    return x;
  };
  return { home: text('home'), user: text('user'), platform: text('platform'), arch: text('arch'), node: text('node'), shell: text('shell') };
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

/** A caller's environment for the host: this machine's own variables passed through unchanged are left out (the host's apply). */
function hostEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if ((MACHINE_ENV as readonly string[]).includes(k) && process.env[k] === v) continue;
    out[k] = v;
  }
  return out;
}
