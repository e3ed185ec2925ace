/**
 * What Switchboard reads of the user's OpenSSH configuration: the aliases their ~/.ssh/config names (the
 * patterns of its `Host` lines that are plain names), and the settings ssh itself would use for one
 * (`ssh -G`), so that ProxyJump, ports, users and identities are OpenSSH's own reading, never ours.
 */
import { targetProblem } from '../../../shared/contract/hosts';

/**
 * The aliases of a config file's `Host` lines, in order, once each: patterns with a wildcard (`*`, `?`), a
 * negation (`!`) or that ssh could not take as a host name are left out. `Match` blocks name no alias.
 * Keywords are case-insensitive, `Host=a b` and quoted patterns are OpenSSH syntax too.
 */
export function configAliases(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^host(?:\s*=\s*|\s+)(.*)$/i.exec(line);
    if (!m) continue;
    for (const pattern of splitArgs(m[1] ?? '')) {
      if (/[*?!]/.test(pattern) || targetProblem(pattern) !== null || pattern.includes('@')) continue;
      seen.add(pattern);
    }
  }
  return [...seen];
}

/** Arguments of a config line: blank-separated, double quotes group (as OpenSSH's argv_split); a comment ends the line. */
function splitArgs(rest: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|([^\s"#]+)|(#.*)/g;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? '');
  }
  return out.filter((a) => a !== '');
}

/** What `ssh -G` says it would use for a host (the fields Switchboard shows and needs). */
export interface EffectiveSsh {
  user: string;
  hostname: string;
  port: number;
  proxyJump: string | null;
  /** The first UserKnownHostsFile (where an accepted key is recorded). */
  knownHostsFile: string | null;
}

/** Parses `ssh -G` output (lowercase keywords, one per line); null when it lacks a host name. */
export function parseEffective(output: string): EffectiveSsh | null {
  const values = new Map<string, string>();
  for (const line of output.split(/\r?\n/)) {
    const m = /^(\S+)\s+(.*)$/.exec(line.trim());
    if (m && !values.has(m[1]!.toLowerCase())) values.set(m[1]!.toLowerCase(), m[2]!);
  }
  const hostname = values.get('hostname');
  if (!hostname) return null;
  const port = Number(values.get('port') ?? '22');
  const proxy = values.get('proxyjump');
  const known = values.get('userknownhostsfile');
  return {
    user: values.get('user') ?? '',
    hostname,
    port: Number.isInteger(port) && port > 0 ? port : 22,
    proxyJump: proxy && proxy !== 'none' ? proxy : null,
    knownHostsFile: known ? (splitArgs(known)[0] ?? null) : null,
  };
}
