import type { Db } from './database';
import { decodeBlock, encodeBlock, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from './message-log';
import { storedBody } from './stored-secrets';

/** history_meta's key while rows are left to repair (its value: the last row id done). See migrations/0028. */
const KEY = 'stored_secrets_repair';
const BATCH = 256;
/** Only messages holding this can hold an MCP server's env values or headers. */
const MARK = '"mcpServers"';

export interface SecretsRepair {
  /** Rows read, and those written again without the values. */
  rows: number;
  rewritten: number;
  /** Blocks that cannot be read (real damage): left as they are, for the reader to report. */
  unreadable: number;
}

/**
 * The start-up repair of stores written before the message log kept only the names of the MCP servers' env
 * values and headers (`stored-secrets.ts`): every stored session/new, load, resume or fork, as a plain row or
 * inside a compressed block, is written again with its values replaced. With `secure_delete` on for the repair,
 * so the pages that held them are zeroed rather than left free in the file; then the WAL is emptied. In
 * batches, each in its transaction with its progress: a stop loses nothing and the next start goes on.
 */
export function repairStoredSecrets(db: Db): SecretsRepair {
  const out: SecretsRepair = { rows: 0, rewritten: 0, unreadable: 0 };
  const progress = db.prepare('SELECT value FROM history_meta WHERE key = ?');
  const started = progress.get(KEY) as { value: number } | undefined;
  if (started === undefined) return out;
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    const next = db.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? AND (typeof(body) = 'blob' OR (direction = 'c2a' AND instr(body, '${MARK}') > 0)) ORDER BY id LIMIT ${BATCH}`,
    );
    const updateText = db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?');
    const updateBlock = db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?');
    const setProgress = db.prepare('UPDATE history_meta SET value = ? WHERE key = ?');
    let after = started.value;
    for (;;) {
      const rows = next.all(after) as MessageRow[];
      if (rows.length === 0) break;
      db.transaction(() => {
        for (const r of rows) {
          out.rows++;
          if (typeof r.body === 'string') {
            const body = storedBody(r.method, r.body);
            if (body !== r.body) {
              updateText.run(body, r.id);
              out.rewritten++;
            }
            continue;
          }
          const messages: PersistedMessage[] = [];
          try {
            decodeBlock(r, messages);
          } catch {
            out.unreadable++;
            continue;
          }
          let changed = false;
          const cleaned = messages.map((m) => {
            if (m.direction !== 'c2a' || !m.body.includes(MARK)) return m;
            const body = storedBody(m.method, m.body);
            if (body === m.body) return m;
            changed = true;
            return { ...m, body };
          });
          if (!changed) continue;
          // The same format as before (its first byte: 2 is the fast one).
          updateBlock.run(encodeBlock(cleaned, r.ts, (r.body as Uint8Array)[0] === 2 ? 'fast' : 6), r.id);
          out.rewritten++;
        }
        after = rows.at(-1)!.id;
        setProgress.run(after, KEY);
      })();
    }
    db.prepare('DELETE FROM history_meta WHERE key = ?').run(KEY);
    // What the WAL still holds of the old pages goes too.
    if (out.rewritten > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.pragma(`secure_delete = ${secureDelete ? 'ON' : 'OFF'}`);
  }
  return out;
}
