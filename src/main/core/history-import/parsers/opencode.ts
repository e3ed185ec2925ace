import type Database from 'better-sqlite3';
import { type OpencodeCursor, readSession, type SessionRead } from './opencode-messages';
import type { SessionMeta } from './types';

/**
 * OpenCode 1.18's database, `~/.local/share/opencode/opencode.db` (packages/opencode/src/session/session.sql.ts in
 * OpenCode's repository: tables session, message and part; a message's and a part's fields are JSON in
 * `data`). Opened read-only, in short reads, with no wait for a lock: OpenCode runs in WAL mode, where a
 * reader never blocks its writer. The fixture (test/fixtures/agent-histories/opencode-*) is built from
 * opencode.sql with that schema.
 *
 * The file is untrusted: only real tables are read (a view, a virtual table, a trigger or a generated column
 * where OpenCode has a table is refused, naming the file), the schema is not trusted to call functions, and
 * every query stops once its call's time is up. It runs in a thread of its own (opencode-thread.ts).
 */

export type { OpencodeCursor } from './opencode-messages';

export interface OpencodeSession {
  meta: Required<Pick<SessionMeta, 'agentSessionId'>> & SessionMeta;
  updatedAt: number;
  createdAt: number;
  /** Its newest message (time created and id), if it has one: a session whose newest message is not new need not be read. */
  last: string | null;
}

/** The columns each table read must have (OpenCode's own have more). */
const TABLES: Record<string, readonly string[]> = {
  session: ['id', 'parent_id', 'directory', 'title', 'version', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'message_id', 'data'],
};

/** better-sqlite3's constructor, passed in: the thread that runs this loads the module by its path. */
export type SqliteModule = typeof Database;

export class OpencodeDb {
  private readonly db: Database.Database;
  /** When the running call must have ended (checked by every row a query reads). */
  private deadline = Infinity;

  constructor(
    private readonly path: string,
    Sqlite: SqliteModule,
  ) {
    this.db = new Sqlite(path, { readonly: true, fileMustExist: true, timeout: 0 });
    try {
      // The schema may not call functions with side effects; nothing is written.
      this.db.pragma('trusted_schema = OFF');
      this.db.pragma('query_only = ON');
      this.db.pragma('cell_size_check = ON');
      this.db.function('sb_alive', { deterministic: false }, () => {
        if (Date.now() > this.deadline) throw new Error('the read took too long');
        return 1;
      });
      this.checkSchema();
    } catch (e) {
      this.db.close();
      throw e;
    }
  }

  /** Refuses anything but OpenCode's real tables where they are read. */
  private checkSchema(): void {
    const refuse = (why: string): never => {
      throw new Error(`${this.path} is not an OpenCode database that can be read safely: ${why}`);
    };
    const objects = this.db.prepare("SELECT lower(name) AS name, type, coalesce(sql, '') AS sql, lower(tbl_name) AS tbl FROM sqlite_master").all() as Array<{ name: string; type: string; sql: string; tbl: string }>;
    for (const table of Object.keys(TABLES)) {
      const found = objects.filter((o) => o.name === table);
      if (!found.length) refuse(`it has no ${table} table`);
      for (const o of found) {
        if (o.type !== 'table') refuse(`its ${table} is a ${o.type}, not a table`);
        if (/^\s*create\s+virtual\b/i.test(o.sql)) refuse(`its ${table} is a virtual table`);
      }
      if (objects.some((o) => o.type === 'trigger' && o.tbl === table)) refuse(`its ${table} table has a trigger`);
      const columns = this.db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(table) as Array<{ name: string; hidden: number }>;
      if (columns.some((c) => c.hidden === 2 || c.hidden === 3)) refuse(`its ${table} table has a generated column`);
      const names = new Set(columns.map((c) => c.name.toLowerCase()));
      const missing = TABLES[table]!.filter((c) => !names.has(c));
      if (missing.length) refuse(`its ${table} table has no ${missing.join(', ')} column`);
    }
  }

  /** Runs a call that must end by `limitMs` from now. */
  private within<T>(limitMs: number, fn: () => T): T {
    this.deadline = Date.now() + limitMs;
    try {
      return fn();
    } finally {
      this.deadline = Infinity;
    }
  }

  sessions(limitMs = Infinity): OpencodeSession[] {
    return this.within(limitMs, () => {
      const newest = "(SELECT m.time_created || ':' || m.id FROM message m WHERE sb_alive() AND m.session_id = s.id ORDER BY m.time_created DESC, m.id DESC LIMIT 1)";
      const rows = this.db.prepare(`SELECT s.id, s.directory, s.title, s.version, s.time_created, s.time_updated, ${newest} AS last FROM session s WHERE sb_alive() AND s.parent_id IS NULL`).all() as Array<{
        last: unknown;
        id: unknown;
        directory: unknown;
        title: unknown;
        version: unknown;
        time_created: unknown;
        time_updated: unknown;
      }>;
      const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
      const time = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
      return rows
        .filter((r): r is typeof r & { id: string } => typeof r.id === 'string' && r.id.length > 0 && r.id.length <= 200)
        .map((r) => ({
          meta: { agentSessionId: r.id, cwd: text(r.directory), title: text(r.title), version: text(r.version) },
          createdAt: time(r.time_created),
          updatedAt: time(r.time_updated),
          last: text(r.last) ?? null,
        }));
    });
  }

  /** What each session gained since its cursor (see opencode-messages.ts), `now` being the time of this read. */
  read(jobs: ReadonlyArray<{ sessionId: string; cursor: OpencodeCursor | null }>, now: number, limitMs = Infinity): SessionRead[] {
    return this.within(limitMs, () => {
      const messages = this.db.prepare(
        'SELECT id, time_created, data FROM message WHERE sb_alive() AND session_id = ? AND (time_created > ? OR (time_created = ? AND id > ?)) ORDER BY time_created, id',
      );
      const parts = this.db.prepare('SELECT id, data FROM part WHERE sb_alive() AND message_id = ? ORDER BY id');
      return jobs.map(({ sessionId, cursor }) =>
        readSession(
          cursor,
          now,
          (t, id) => messages.all(sessionId, t, t, id) as Array<{ id: unknown; time_created: unknown; data: unknown }>,
          (messageId) => parts.all(messageId) as Array<{ id: unknown; data: unknown }>,
        ),
      );
    });
  }

  close(): void {
    this.db.close();
  }
}
