import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

/**
 * The host aliases an ssh_config names (`Host devbox buildbox`), following `Include` (globs in the last path
 * part), without patterns (`*`, `?`, `!…`). Default: the user's ~/.ssh/config. A missing file lists nothing.
 */
export async function listSshAliases(configFile = join(homedir(), '.ssh', 'config')): Promise<string[]> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const read = async (file: string, depth: number): Promise<void> => {
    if (depth > 8 || seen.has(file)) return;
    seen.add(file);
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const raw of text.split('\n')) {
      const line = raw.replace(/#.*/, '').trim();
      const m = /^(\w+)\s*(?:=\s*|\s)(.*)$/.exec(line);
      if (!m) continue;
      const key = m[1]!.toLowerCase();
      const args = [...m[2]!.matchAll(/"([^"]*)"|(\S+)/g)].map((t) => t[1] ?? t[2]!).filter(Boolean);
      if (key === 'host') {
        for (const a of args) if (!/[*?!]/.test(a)) found.add(a);
      } else if (key === 'include') {
        for (const a of args) {
          const path = a.startsWith('~/') ? join(homedir(), a.slice(2)) : isAbsolute(a) ? a : join(homedir(), '.ssh', a);
          for (const f of await expand(path)) await read(f, depth + 1);
        }
      }
    }
  };
  await read(configFile, 0);
  return [...found];
}

async function expand(path: string): Promise<string[]> {
  const name = basename(path);
  if (!/[*?]/.test(name)) return [path];
  const re = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  return names.filter((n) => re.test(n)).sort().map((n) => join(dirname(path), n));
}
