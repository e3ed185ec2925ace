// An agent's output is read at most READ_AHEAD_BYTES ahead of what has been handed on: a flood waits in the
// agent's pipe (its writes block), not in Switchboard's memory, and nothing is lost or reordered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentLog } from '../../../src/main/core/acp/connection/agent-log';
import { AgentProcess } from '../../../src/main/core/acp/connection/agent-process';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { AcpWire, READ_AHEAD_BYTES, type UpdateItem } from '../../../src/main/core/acp/connection/acp-wire';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { MessageLog } from '../../../src/main/core/store/message-log';

const dirs: string[] = [];
const dbs: Db[] = [];
const logs: AgentLog[] = [];
afterEach(() => {
  for (const l of logs.splice(0)) l.dispose();
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sb-readahead-'));
  dirs.push(d);
  return d;
}

function agentLog(path: string): AgentLog {
  const l = new AgentLog(path);
  logs.push(l);
  return l;
}

const update = (i: number, pad: string) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'acp-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ${pad}` } } } });

interface Harness {
  wire: AcpWire;
  /** Every update handed on, by its number. */
  received: number[];
  fills: number;
  releases: number;
}

function harness(dir: string, readAhead: (full: boolean) => void, log: MessageLog | null): Harness {
  const h: Harness = { wire: null as unknown as AcpWire, received: [], fills: 0, releases: 0 };
  h.wire = new AcpWire(
    { write: () => Promise.resolve() },
    () => log,
    agentLog(join(dir, 'agent.log')),
    {
      sessionOf: (acpId) => (acpId === 'acp-1' ? 's1' : undefined),
      bindSession: () => {},
      onUpdates: (_sessionId, items: UpdateItem[]) => {
        for (const it of items) {
          const u = (it.params as { update: { content: { text: string } } }).update;
          h.received.push(Number(u.content.text.split(' ')[0]));
        }
      },
      onWarning: () => {},
      readAhead: (full) => {
        if (full) h.fills++;
        else h.releases++;
        readAhead(full);
      },
    },
    1024 * 1024,
  );
  return h;
}

describe('read-ahead of an agent’s output', () => {
  it('holds a real agent’s 8 MB flood in its pipe: never more than the read-ahead and one read in memory, every line in order', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'switchboard.db'));
    dbs.push(db);
    db.prepare('INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES (?, ?, ?, 1, 1)').run('s1', 'x', dir);
    // A long grouping window: full batches must not wait for it.
    const log = new MessageLog(db, { groupMs: 1000 });
    const n = 40_000;
    const pad = 'y'.repeat(150);
    // The agent writes its whole flood as fast as the pipe takes it, then stays (an agent that exits is read at
    // full speed: what is left in its pipe is all there will be).
    const script = `
      const line = (i) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'acp-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: i + ' ${pad}' } } } });
      let s = '';
      for (let i = 0; i < ${n}; i++) {
        s += line(i) + '\\n';
        if (s.length > 1 << 20) { process.stdout.write(s); s = ''; }
      }
      process.stdout.write(s);
      setInterval(() => {}, 1000);`;
    let proc: AgentProcess | null = null;
    let held = 0;
    let peak = 0;
    const h = harness(dir, (full) => (full ? proc?.pauseStdout('read-ahead') : proc?.resumeStdout('read-ahead')), log);
    const receivedBefore = () => h.received.length;
    let lastCount = 0;
    const exited = new Promise<void>((resolve) => {
      proc = new AgentProcess(new LocalHost(), { command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH ?? '' }, cwd: dir }, agentLog(join(dir, 'proc.log')), {
        onStdout: (chunk) => {
          // Bytes read since lines were last handed on.
          if (receivedBefore() !== lastCount) {
            lastCount = receivedBefore();
            held = 0;
          }
          held += chunk.length;
          peak = Math.max(peak, held);
          h.wire.receive(chunk);
        },
        onStdoutEnd: () => h.wire.end(),
        onExit: () => resolve(),
      });
    });
    for (let i = 0; i < 600 && h.received.length < n; i++) await new Promise((r) => setTimeout(r, 50));
    const stopped = (proc as AgentProcess | null)!.stop(1000);
    await exited;
    await stopped;
    expect(h.received).toHaveLength(n);
    expect(h.received.every((v, i) => v === i)).toBe(true);
    expect((db.prepare('SELECT sum(n) AS n FROM acp_messages').get() as { n: number }).n).toBe(n);
    // Reading paused and resumed many times; what was read ahead stayed within the bound plus one pipe read.
    expect(h.fills).toBeGreaterThan(10);
    expect(h.releases).toBe(h.fills);
    expect(peak).toBeLessThanOrEqual(READ_AHEAD_BYTES + 64 * 1024);
  }, 60_000);

  it('a long line still being read does not pause reading (it is bounded by the line limit, and nothing would resume it)', async () => {
    const dir = tempDir();
    const h = harness(dir, () => {}, null);
    const pad = 'z'.repeat(100);
    // 900 KB of one unfinished line: under the 1 MB line limit, no complete line waiting.
    const long = Buffer.from(update(0, 'x'.repeat(900 * 1024)));
    for (let at = 0; at < long.length; at += 64 * 1024) h.wire.receive(long.subarray(at, at + 64 * 1024));
    expect(h.fills).toBe(0);
    h.wire.receive(Buffer.from(`\n${update(1, pad)}\n`));
    await new Promise((r) => setImmediate(r));
    expect(h.received).toEqual([0, 1]);
    // A complete line waiting with a long partial line behind it: paused, then resumed once it is handed on.
    h.wire.receive(Buffer.from(`${update(2, pad)}\n`));
    const partial = Buffer.from(update(3, 'x'.repeat(400 * 1024)));
    for (let at = 0; at < partial.length; at += 64 * 1024) h.wire.receive(partial.subarray(at, at + 64 * 1024));
    expect(h.fills).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(h.releases).toBe(1);
    h.wire.receive(Buffer.from('\n'));
    await new Promise((r) => setImmediate(r));
    expect(h.received).toEqual([0, 1, 2, 3]);
  });
});
