/**
 * Numbered SQL migrations, bundled at build time. `NNNN_name.sql` is applied once, in order, and
 * PRAGMA user_version records the last one applied.
 */
const files = import.meta.glob('./migrations/*.sql', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

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
