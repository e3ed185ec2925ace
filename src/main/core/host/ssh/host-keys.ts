import { spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSsh, sshArgs, type SshTarget } from './ssh-command';

/** A host key no known_hosts file knows yet, as the host presented it: shown to the user, added only if they accept. */
export interface UnknownHostKey {
  /** The host as ssh names it in known_hosts (`host` or `[host]:port`). */
  host: string;
  /** `ssh-keygen -l` lines: bits, SHA256 fingerprint, host, key type. */
  fingerprints: string[];
  /** The known_hosts lines that accepting appends. */
  lines: string[];
  /** The file accepting appends them to. */
  knownHostsFile: string;
}

/** What `ssh -G` says of a destination (its ssh_config applied). */
export async function resolvedConfig(t: SshTarget): Promise<Map<string, string>> {
  const args = sshArgs(t, ['-G']);
  const r = await runSsh(args, { timeoutMs: 10_000 });
  if (r.code !== 0) throw new Error(r.stderr.trim() || 'ssh -G failed');
  const out = new Map<string, string>();
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const i = line.indexOf(' ');
    if (i > 0 && !out.has(line.slice(0, i))) out.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return out;
}

function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

function fingerprint(lines: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh-keygen', ['-l', '-f', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').filter(Boolean)) : reject(new Error(err.trim() || 'ssh-keygen could not read the key'))));
    child.stdin.end(`${lines.join('\n')}\n`);
  });
}

/**
 * The key the host presents, read the way ssh itself would meet it (through ProxyJump, aliases, the
 * negotiated key type): one connection with a throwaway known_hosts file that accepts it, no authentication
 * attempted, no ControlMaster. Then fingerprinted with ssh-keygen.
 */
export async function scanHostKey(t: SshTarget): Promise<UnknownHostKey> {
  const config = await resolvedConfig(t);
  const dir = await mkdtemp(join(tmpdir(), 'sb-hostkey-'));
  try {
    const file = join(dir, 'known_hosts');
    const probe: SshTarget = { ...t, knownHostsFile: file, controlPath: 'none' };
    const extra = ['-o', 'StrictHostKeyChecking=accept-new', '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'CheckHostIP=no', '-o', 'UpdateHostKeys=no'];
    for (const m of ['PubkeyAuthentication', 'PasswordAuthentication', 'KbdInteractiveAuthentication', 'GSSAPIAuthentication', 'HostbasedAuthentication']) extra.push('-o', `${m}=no`);
    // Options given twice: the first wins, so the probe's must come before the target's own.
    const args = sshArgs(probe, ['-o', 'ControlMaster=no', '-T'], 'true');
    const r = await runSsh([...extra, ...args], { timeoutMs: (t.connectTimeoutS + 5) * 1000 });
    const lines = (await readFile(file, 'utf8').catch(() => ''))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    if (lines.length === 0) throw new Error(`could not read the host's key: ${r.stderr.trim() || 'ssh said nothing'}`);
    const port = Number(config.get('port') ?? 22);
    const name = config.get('hostkeyalias') ?? config.get('hostname') ?? t.destination;
    const knownHostsFile = expandHome(t.knownHostsFile ?? (config.get('userknownhostsfile') ?? '~/.ssh/known_hosts').split(/\s+/)[0]!);
    return { host: port === 22 ? name : `[${name}]:${port}`, fingerprints: await fingerprint(lines), lines, knownHostsFile };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Appends the accepted key's lines to the user's known_hosts (creating it, and its folder, private). */
export async function acceptHostKey(key: UnknownHostKey): Promise<void> {
  await mkdir(dirname(key.knownHostsFile), { recursive: true, mode: 0o700 });
  const existing = await readFile(key.knownHostsFile, 'utf8').catch(() => '');
  const sep = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await appendFile(key.knownHostsFile, `${sep}${key.lines.join('\n')}\n`, { mode: 0o600 });
}
