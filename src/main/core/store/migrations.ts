import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Numbered SQL migrations. `NNNN_name.sql` is applied once, in order, and PRAGMA user_version records the
 * last one applied. Vite bundles them into the build (import.meta.env exists only there and under vitest);
 * run from source by plain Node (tsx: benchmarks, test child processes) they are read from the folder.
 */
function readFromFolder(): Record<string, string> {
  const dir = fileURLToPath(new URL('./migrations/', import.meta.url));
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => [`./migrations/${f}`, readFileSync(dir + f, 'utf8')]),
  );
}

const files: Record<string, string> = import.meta.env
  ? (import.meta.glob('./migrations/*.sql', { query: '?raw', import: 'default', eager: true }) as Record<string, string>)
  : readFromFolder();

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = Object.entries(files)
  .map(([path, sql]) => {
    const m = /(\d{4})_([\w-]+)\.sql$/.exec(path);
    if (!m) throw new Error(`migration file not named NNNN_name.sql: ${path}`);
    return { version: Number(m[1]), name: m[2]!, sql };
  })
  .sort((a, b) => a.version - b.version);

migrations.forEach((m, i) => {
  if (i > 0 && m.version === migrations[i - 1]!.version) throw new Error(`two migrations numbered ${m.version}`);
});

export const latestSchemaVersion = migrations.at(-1)?.version ?? 0;
