import Database from 'better-sqlite3';
import { isObject, str, unknownItem, type SessionMeta, type TranscriptItem } from './types';

/**
 * OpenCode 1.18's database, `~/.local/share/opencode/opencode.db` (packages/opencode/src/session/session.sql.ts in
 * OpenCode's repository: tables session, message and part; a message's and a part's fields are JSON in
 * `data`). Opened read-only, in short reads, with no wait for a lock: OpenCode runs in WAL mode, where a
 * reader never blocks its writer. The fixture (test/fixtures/agent-histories/opencode-*) is built by
 * make-opencode.ts with that schema.
 */

export interface OpencodeSession {
  meta: Required<Pick<SessionMeta, 'agentSessionId'>> & SessionMeta;
  updatedAt: number;
  createdAt: number;
}

export interface OpencodeCursor {
  /** The session's time_updated when it was last imported. */
  updatedAt: number;
  /** The last message imported (ids sort in creation order), and when it was made. */
  lastMessageId: string | null;
  lastMessageTime: number;
}

export class OpencodeDb {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
  }

  sessions(): OpencodeSession[] {
    const rows = this.db.prepare('SELECT id, directory, title, version, time_created, time_updated FROM session WHERE parent_id IS NULL').all() as Array<{
      id: string;
      directory: string;
      title: string;
      version: string;
      time_created: number;
      time_updated: number;
    }>;
    return rows.map((r) => ({
      meta: { agentSessionId: r.id, cwd: r.directory, title: r.title, version: r.version },
      createdAt: r.time_created,
      updatedAt: r.time_updated,
    }));
  }

  /** The items of a session's messages after `cursor`, and the cursor after them. */
  itemsAfter(sessionId: string, cursor: OpencodeCursor | null): { items: TranscriptItem[]; cursor: Omit<OpencodeCursor, 'updatedAt'> } {
    const after = cursor?.lastMessageTime ?? -1;
    const afterId = cursor?.lastMessageId ?? '';
    const messages = this.db
      .prepare('SELECT id, time_created, data FROM message WHERE session_id = ? AND (time_created > ? OR (time_created = ? AND id > ?)) ORDER BY time_created, id')
      .all(sessionId, after, after, afterId) as Array<{ id: string; time_created: number; data: string }>;
    const parts = this.db.prepare('SELECT id, data FROM part WHERE message_id = ? ORDER BY id');
    const items: TranscriptItem[] = [];
    let last = { lastMessageId: cursor?.lastMessageId ?? null, lastMessageTime: cursor?.lastMessageTime ?? -1 };
    for (const m of messages) {
      let info: unknown;
      try {
        info = JSON.parse(m.data);
      } catch {
        info = null;
      }
      const role = isObject(info) ? str(info.role) : undefined;
      const ts = m.time_created;
      const texts: string[] = [];
      for (const p of parts.all(m.id) as Array<{ id: string; data: string }>) {
        let part: unknown;
        try {
          part = JSON.parse(p.data);
        } catch {
          items.push(unknownItem('part not JSON', p.data, ts));
          continue;
        }
        if (!isObject(part)) continue;
        switch (part.type) {
          case 'text':
            if (part.synthetic === true || part.ignored === true) break;
            if (role === 'user') texts.push(str(part.text) ?? '');
            else items.push({ type: 'agent', ts, text: str(part.text) ?? '' });
            break;
          case 'reasoning':
            items.push({ type: 'thought', ts, text: str(part.text) ?? '' });
            break;
          case 'tool': {
            const state = isObject(part.state) ? part.state : {};
            const id = str(part.callID) ?? p.id;
            items.push({ type: 'tool_call', ts, id, name: str(part.tool) ?? 'tool', input: state.input ?? {} });
            if (state.status === 'completed') items.push({ type: 'tool_result', ts, id, output: str(state.output) ?? '', failed: false });
            else if (state.status === 'error') items.push({ type: 'tool_result', ts, id, output: str(state.error) ?? '', failed: true });
            break;
          }
          case 'file':
            if (role === 'user') texts.push(`[${str(part.filename) ?? str(part.mime) ?? 'file'}]`);
            break;
          case 'step-start':
          case 'step-finish':
          case 'snapshot':
          case 'patch':
          case 'agent':
          case 'retry':
          case 'compaction':
          case 'subtask':
            break;
          default:
            items.push(unknownItem(`part ${String(part.type)}`, part, ts));
        }
      }
      if (texts.length) items.push({ type: 'prompt', ts, text: texts.join('\n\n') });
      last = { lastMessageId: m.id, lastMessageTime: m.time_created };
    }
    return { items, cursor: last };
  }

  close(): void {
    this.db.close();
  }
}
