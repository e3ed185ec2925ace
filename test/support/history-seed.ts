// A store with past sessions, written through the app's own modules (message log + history indexer) before
// the app starts: for the history end-to-end tests and the restore benchmark. Plain Node (no Vite): the
// migrations are read from src/main/core/store/migrations, as openDatabase applies them.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryIndex } from '../../src/main/core/history/history-index';
import { connect } from '../../src/main/core/store/connection';
import type { Db } from '../../src/main/core/store/database';
import { MessageLog, type LogEntry } from '../../src/main/core/store/message-log';
import { repoRoot } from './app-server';

export type SeedMessage = Omit<LogEntry, 'sessionId'>;

export interface SeedSession {
  id: string;
  agentId: string;
  cwd: string;
  createdAt: number;
  /** The client's title (sessions.title); null: the agent's or the first prompt's. */
  title?: string | null;
  pinned?: boolean;
  status?: string;
  messages: SeedMessage[];
}

export interface SeedAgent {
  id: string;
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

const migrationsDir = join(repoRoot, 'src/main/core/store/migrations');

/** Opens (creating) a store file with the app's connection settings and every migration. */
export function openSeedStore(path: string): Db {
  const db = connect(path);
  const current = db.pragma('user_version', { simple: true }) as number;
  const files = readdirSync(migrationsDir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  for (const f of files) {
    const version = Number(f.slice(0, 4));
    if (version <= current) continue;
    const sql = readFileSync(join(migrationsDir, f), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
  return db;
}

/** Writes agents and sessions (their ACP messages indexed as the running app indexes them) into dataDir/switchboard.db. */
export function seedHistory(dataDir: string, data: { agents?: SeedAgent[]; sessions: SeedSession[] }): void {
  mkdirSync(dataDir, { recursive: true });
  const db = openSeedStore(join(dataDir, 'switchboard.db'));
  const index = new HistoryIndex(db);
  index.catchUp();
  const log = new MessageLog(db);
  log.addIndexer(index.indexer);
  try {
    const addAgent = db.prepare(
      `INSERT INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at)
       VALUES (?, ?, 'custom', ?, ?, ?, NULL, NULL, NULL, ?, ?)`,
    );
    for (const a of data.agents ?? []) addAgent.run(a.id, a.name, a.command, JSON.stringify(a.args ?? []), JSON.stringify(a.env ?? {}), Date.now(), Date.now());
    const addSession = db.prepare(
      'INSERT INTO sessions (id, agent_id, cwd, title, status, pinned, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const s of data.sessions) {
      const last = s.messages.at(-1)?.ts ?? s.createdAt;
      addSession.run(s.id, s.agentId, s.cwd, s.title ?? null, s.status ?? 'closed', s.pinned ? 1 : 0, s.createdAt, last);
      for (let i = 0; i < s.messages.length; i += 5000) {
        log.appendMany(s.messages.slice(i, i + 5000).map((m, k) => ({ sessionId: s.id, ...m, ts: m.ts ?? s.createdAt + i + k })));
      }
    }
  } finally {
    log.dispose();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  }
}

const line = (o: unknown): string => JSON.stringify(o);

/** ACP wire messages of one session, numbered as a client numbers its requests, with a running clock. */
export class AcpScript {
  private nextId = 2;
  private agentId = 1000;
  readonly messages: SeedMessage[] = [];

  constructor(
    readonly acpSessionId: string,
    private ts: number,
    private readonly step = 1000,
  ) {}

  private push(direction: 'c2a' | 'a2c', method: string | null, body: unknown): void {
    this.ts += this.step;
    this.messages.push({ direction, method, body: line(body), ts: this.ts });
  }
  private update(u: Record<string, unknown>): void {
    this.push('a2c', 'session/update', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: this.acpSessionId, update: u } });
  }

  /** The clock jumps (e.g. a day between turns). */
  wait(ms: number): this {
    this.ts += ms;
    return this;
  }
  start(cwd: string): this {
    this.push('c2a', 'session/new', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } });
    this.push('a2c', null, { jsonrpc: '2.0', id: 1, result: { sessionId: this.acpSessionId } });
    return this;
  }
  /** A prompt; returns its request id for the stop. */
  prompt(text: string, extra: unknown[] = []): number {
    const id = this.nextId++;
    this.push('c2a', 'session/prompt', { jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: this.acpSessionId, prompt: [{ type: 'text', text }, ...extra] } });
    return id;
  }
  /** An agent message, streamed in chunks. */
  agent(text: string, chunk = 40): this {
    for (let i = 0; i < text.length; i += chunk) this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: text.slice(i, i + chunk) } });
    return this;
  }
  thought(text: string): this {
    this.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
    return this;
  }
  title(title: string): this {
    this.update({ sessionUpdate: 'session_info_update', title });
    return this;
  }
  tool(toolCallId: string, title: string, kind: string, o: { paths?: string[]; status?: string; text?: string; diff?: { path: string; oldText: string | null; newText: string } } = {}): this {
    this.update({ sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', locations: (o.paths ?? []).map((path) => ({ path })) });
    const content = [
      ...(o.text ? [{ type: 'content', content: { type: 'text', text: o.text } }] : []),
      ...(o.diff ? [{ type: 'diff', ...o.diff }] : []),
    ];
    this.update({ sessionUpdate: 'tool_call_update', toolCallId, status: o.status ?? 'completed', ...(content.length ? { content } : {}) });
    return this;
  }
  write(path: string, content: string): this {
    const id = this.agentId++;
    this.push('a2c', 'fs/write_text_file', { jsonrpc: '2.0', id, method: 'fs/write_text_file', params: { sessionId: this.acpSessionId, path, content } });
    this.push('c2a', null, { jsonrpc: '2.0', id, result: null });
    return this;
  }
  stop(id: number, stopReason = 'end_turn'): this {
    this.push('a2c', null, { jsonrpc: '2.0', id, result: { stopReason } });
    return this;
  }
  fail(id: number, message: string, code = -32603): this {
    this.push('a2c', null, { jsonrpc: '2.0', id, error: { code, message } });
    return this;
  }
  /** A whole turn: prompt, answer, stop. */
  turn(prompt: string, answer: string, stopReason = 'end_turn'): this {
    const id = this.prompt(prompt);
    this.agent(answer);
    return this.stop(id, stopReason);
  }
}
