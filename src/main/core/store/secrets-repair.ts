import type { Db } from './database';
import { repairInBatches } from './batched-repair';
import { decodeBlock, encodeBlock, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from './message-log';
import { storedBody } from './stored-secrets';

/** history_meta's key while rows are left to repair (its value: the last row id done). See migrations/0028. */
const KEY = 'stored_secrets_repair';
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
 * so the pages that held them are zeroed rather than left free in the file; then the WAL is emptied.
 */
export function repairStoredSecrets(db: Db): SecretsRepair {
  const out: SecretsRepair = { rows: 0, rewritten: 0, unreadable: 0 };
  if (db.prepare('SELECT 1 FROM history_meta WHERE key = ?').get(KEY) === undefined) return out;
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    const update = db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?');
    const select = `SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? AND (typeof(body) = 'blob' OR (direction = 'c2a' AND instr(body, '${MARK}') > 0))`;
    repairInBatches(db, KEY, select, (r) => {
      out.rows++;
      const body = cleaned(r, out);
      if (body === null) return;
      update.run(body, r.id);
      out.rewritten++;
    });
    // What the WAL still holds of the old pages goes too.
    if (out.rewritten > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.pragma(`secure_delete = ${secureDelete ? 'ON' : 'OFF'}`);
  }
  return out;
}

/** The row's body without the values (a plain row's text, or a block written again); null when it holds none. */
function cleaned(r: MessageRow, out: SecretsRepair): string | Buffer | null {
  if (typeof r.body === 'string') {
    const body = storedBody(r.method, r.body);
    return body === r.body ? null : body;
  }
  const messages: PersistedMessage[] = [];
  try {
    decodeBlock(r, messages);
  } catch {
    out.unreadable++;
    return null;
  }
  let changed = false;
  const kept = messages.map((m) => {
    if (m.direction !== 'c2a' || !m.body.includes(MARK)) return m;
    const body = storedBody(m.method, m.body);
    if (body === m.body) return m;
    changed = true;
    return { ...m, body };
  });
  // The same format as before (its first byte: 2 is the fast one).
  return changed ? encodeBlock(kept, r.ts, (r.body as Uint8Array)[0] === 2 ? 'fast' : 6) : null;
}
