import type { DistKind, RegistryEntry, RegistryProgress, RegistryProgressStep, RegistrySource } from '@shared/contract/registry';

import { formatBytes } from '@shared/format-bytes';

/** "just now", "5 minutes ago", "3 days ago". */
export function formatAge(then: number, now: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} minute${m === 1 ? '' : 's'} ago`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} hour${h === 1 ? '' : 's'} ago`;
  const d = Math.round(h / 24);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

export const formatDate = (t: number): string =>
  new Date(t).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export const KIND_TEXT: Record<DistKind, string> = {
  binary: 'binary',
  npx: 'npm (npx)',
  uvx: 'Python (uvx)',
};

export const KIND_TITLE: Record<DistKind, string> = {
  binary: 'A platform archive downloaded and unpacked into Switchboard’s data folder',
  npx: 'An npm package, installed with your Node.js and npm',
  uvx: 'A Python package, installed with uv',
};

const STEP_TEXT: Record<RegistryProgressStep, string> = {
  preparing: 'Preparing',
  downloading: 'Downloading',
  extracting: 'Unpacking',
  installing: 'Installing',
  verifying: 'Checking',
  finishing: 'Finishing',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The steps an install of this kind goes through, in order. */
export const stepsOf = (kind: DistKind): RegistryProgressStep[] =>
  kind === 'binary' ? ['preparing', 'downloading', 'extracting', 'verifying', 'finishing'] : ['preparing', 'installing', 'verifying', 'finishing'];

export const isTerminal = (p: RegistryProgress | null | undefined): boolean =>
  !p || p.step === 'done' || p.step === 'failed' || p.step === 'cancelled';

export function describeProgress(p: RegistryProgress): { label: string; fraction: number | null; detail: string | null } {
  const steps = stepsOf(p.kind);
  const at = steps.indexOf(p.step);
  const counter = at >= 0 ? ` (step ${at + 1} of ${steps.length})` : '';
  let detail: string | null = null;
  let fraction: number | null = null;
  if (p.bytesDone !== null) {
    if (p.bytesTotal) {
      fraction = Math.min(1, p.bytesDone / p.bytesTotal);
      detail = `${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)}`;
    } else detail = formatBytes(p.bytesDone);
  }
  if (p.step !== 'downloading' && p.message) detail = detail ? `${detail} · ${p.message}` : p.message;
  const verb = p.operation === 'update' ? 'Updating to' : 'Installing';
  return { label: `${verb} ${p.version}: ${STEP_TEXT[p.step]}${counter}`, fraction, detail };
}

/** What the header says about where the list came from. */
export function describeSource(source: RegistrySource, now: number): { level: 'ok' | 'warning' | 'error'; text: string } {
  const from = source.fetchedAt ? formatDate(source.fetchedAt) : null;
  if (source.origin === 'none' || !from) {
    return {
      level: 'error',
      text: source.error ? `The registry could not be loaded: ${source.error}` : 'The registry has not been loaded yet.',
    };
  }
  if (source.error) {
    // The server answered, but not with a usable registry: not "offline".
    const answered = /answered \d{3}|not valid JSON|not a registry|must be http|not a URL/i.test(source.error);
    const lead = answered ? `The registry could not be refreshed: showing the copy from ${from}.` : `Offline: showing the copy from ${from}.`;
    return { level: 'warning', text: `${lead} The last refresh failed: ${source.error}` };
  }
  if (source.origin === 'cache') return { level: 'warning', text: `Showing the saved copy from ${from}.` };
  const checked = source.checkedAt && source.notModified ? `, checked ${formatAge(source.checkedAt, now)} (unchanged)` : '';
  return { level: 'ok', text: `Downloaded ${formatAge(source.fetchedAt!, now)}${checked}.` };
}

export type ShowFilter = 'all' | 'installed' | 'updates';

export interface EntryFilter {
  query: string;
  show: ShowFilter;
  /** Empty: every distribution type. */
  kinds: DistKind[];
}

const haystack = (e: RegistryEntry): string =>
  [e.name, e.id, e.description, e.license ?? '', ...e.authors, e.repository ?? '', ...e.distributions].join('\n').toLowerCase();

/** Entries matching every word of the query (name, id, description, authors, license…) and the filters. */
export function filterEntries(entries: readonly RegistryEntry[], f: EntryFilter): RegistryEntry[] {
  const words = f.query.toLowerCase().split(/\s+/).filter(Boolean);
  return entries.filter((e) => {
    if (f.show === 'installed' && !e.installed) return false;
    if (f.show === 'updates' && !e.updateAvailable) return false;
    if (f.kinds.length > 0 && !e.distributions.some((k) => f.kinds.includes(k))) return false;
    if (words.length === 0) return true;
    const text = haystack(e);
    return words.every((w) => text.includes(w));
  });
}

/** "KEY=value" lines → an env object; lines that are not that are reported. */
export function parseEnvText(text: string): { env: Record<string, string>; errors: string[] } {
  const env: Record<string, string> = {};
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!key || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      errors.push(`line ${i + 1}: write NAME=value (a name of letters, digits and _)`);
      return;
    }
    if (key.length > 256) {
      errors.push(`line ${i + 1}: the name is too long`);
      return;
    }
    env[key] = line.slice(eq + 1);
  });
  return { env, errors };
}

export const envToText = (env: Record<string, string>): string =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

/** One argument per line; empty lines are dropped. */
export const parseArgsText = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

/** A command line for display (arguments with spaces quoted). */
export const commandLine = (command: string, args: readonly string[]): string =>
  [command, ...args].map((a) => (/[\s"']/.test(a) || a === '' ? JSON.stringify(a) : a)).join(' ');

export const isHttpUrl = (u: string | null | undefined): u is string => {
  if (!u) return false;
  try {
    const url = new URL(u);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};
