// Builders of ACP wire messages (JSON-RPC lines as the message log stores them) and a store for history tests.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryService, type HistoryOptions } from '../../../src/main/core/history/history-service';
import type { Db } from '../../../src/main/core/store/database';
import { MessageLog, type LogEntry } from '../../../src/main/core/store/message-log';
import { StoreService } from '../../../src/main/core/store/store-service';
import { tempDir } from '../../support/app-server';

type Msg = Omit<LogEntry, 'sessionId'>;
const line = (o: unknown): string => JSON.stringify(o);
const update = (sid: string, u: Record<string, unknown>): Msg => ({
  direction: 'a2c',
  method: 'session/update',
  body: line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: u } }),
});

/** Messages of one ACP session, numbered like a real client numbers its requests. */
export class Acp {
  private nextId = 10;
  constructor(readonly acpSessionId = 'acp-1') {}

  prompt(text: string, extra: unknown[] = []): Msg & { id: number } {
    const id = this.nextId++;
    return {
      id,
      direction: 'c2a',
      method: 'session/prompt',
      body: line({ jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: this.acpSessionId, prompt: [{ type: 'text', text }, ...extra] } }),
    };
  }
  stop(id: number, stopReason = 'end_turn'): Msg {
    return { direction: 'a2c', method: null, body: line({ jsonrpc: '2.0', id, result: { stopReason } }) };
  }
  error(id: number, message: string, code = -32603): Msg {
    return { direction: 'a2c', method: null, body: line({ jsonrpc: '2.0', id, error: { code, message } }) };
  }
  agent(text: string, messageId?: string): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, ...(messageId ? { messageId } : {}) });
  }
  user(text: string): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
  }
  thought(text: string): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
  }
  tool(u: Record<string, unknown>): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'tool_call', ...u });
  }
  toolUpdate(u: Record<string, unknown>): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'tool_call_update', ...u });
  }
  title(title: string | null): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'session_info_update', title });
  }
  plan(entries: Array<{ content: string; status: string }>): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'plan', entries: entries.map((e) => ({ ...e, priority: 'medium' })) });
  }
  usage(): Msg {
    return update(this.acpSessionId, { sessionUpdate: 'usage_update', used: 1000, size: 200000 });
  }
  write(path: string, content: string): Msg {
    const id = this.nextId++;
    return { direction: 'a2c', method: 'fs/write_text_file', body: line({ jsonrpc: '2.0', id, method: 'fs/write_text_file', params: { sessionId: this.acpSessionId, path, content } }) };
  }
  /** terminal/output request (agent) and its response (client). */
  terminalOutput(terminalId: string, output: string, exitCode: number | null = 0): Msg[] {
    const id = `req-${this.nextId++}`;
    return [
      { direction: 'a2c', method: 'terminal/output', body: line({ jsonrpc: '2.0', id, method: 'terminal/output', params: { sessionId: this.acpSessionId, terminalId } }) },
      {
        direction: 'c2a',
        method: null,
        body: line({ jsonrpc: '2.0', id, result: { output, truncated: false, ...(exitCode === null ? {} : { exitStatus: { exitCode, signal: null } }) } }),
      },
    ];
  }
  load(): Msg & { id: number } {
    const id = this.nextId++;
    return { id, direction: 'c2a', method: 'session/load', body: line({ jsonrpc: '2.0', id, method: 'session/load', params: { sessionId: this.acpSessionId, cwd: '/p', mcpServers: [] } }) };
  }
  result(id: number, result: unknown = {}): Msg {
    return { direction: 'a2c', method: null, body: line({ jsonrpc: '2.0', id, result }) };
  }
}

/** A whole turn: prompt, streamed answer in small chunks, stop. */
export function turn(acp: Acp, prompt: string, answer: string, chunk = 7, stopReason = 'end_turn'): Msg[] {
  const p = acp.prompt(prompt);
  const out: Msg[] = [p];
  for (let i = 0; i < answer.length; i += chunk) out.push(acp.agent(answer.slice(i, i + chunk)));
  out.push(acp.stop(p.id, stopReason));
  return out;
}

export interface TestStore {
  dir: string;
  path: string;
  store: StoreService;
  db: Db;
  log: MessageLog;
  history: HistoryService;
  addSession(id: string, o?: { agentId?: string; cwd?: string; createdAt?: number; title?: string | null }): void;
  append(sessionId: string, msgs: Msg[], ts?: number): void;
  close(): void;
}

/** A real store in a temp dir with a message log whose batches the history service indexes. */
export async function createStore(dir = tempDir('sb-history-'), options: HistoryOptions = {}): Promise<TestStore> {
  const store = new StoreService(dir);
  const db = store.db;
  const log = new MessageLog(db);
  const history = new HistoryService(store, null, options);
  history.attach(log);
  await history.whenIndexed();
  return {
    dir,
    path: join(dir, 'switchboard.db'),
    store,
    db,
    log,
    history,
    addSession(id, o = {}) {
      const t = o.createdAt ?? 1_700_000_000_000;
      db.prepare('INSERT INTO sessions (id, agent_id, cwd, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        id,
        o.agentId ?? 'claude',
        o.cwd ?? '/home/u/project',
        o.title ?? null,
        t,
        t,
      );
    },
    append(sessionId, msgs, ts) {
      log.appendMany(msgs.map((m, i) => ({ sessionId, direction: m.direction, method: m.method, body: m.body, ...(ts !== undefined ? { ts: ts + i } : {}) })));
    },
    close() {
      history.dispose();
      log.dispose();
      store.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
