// Child process of history-sigkill.test.ts: appends realistic ACP traffic through MessageLog, with the history
// index attached, as fast as it can; prints the seq of every message whose append has resolved (= committed
// together with its index rows), until it is killed. Message k (its seq) is deterministic, see `message`.
import { HistoryIndex } from '../../../src/main/core/history/history-index';
import { connect } from '../../../src/main/core/store/connection';
import { MessageLog, type LogEntry } from '../../../src/main/core/store/message-log';

const [path, sessionId] = process.argv.slice(2) as [string, string];
const db = connect(path);
const index = new HistoryIndex(db);
index.catchUp();
const log = new MessageLog(db);
log.addIndexer(index.indexer);

const update = (u: unknown) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'acp', update: u } });

/** Message number k: a prompt every 20 (id k), chunks with a unique word, a tool call with a diff, the stop. */
export function message(k: number): Omit<LogEntry, 'sessionId'> {
  const r = k % 20;
  if (r === 1) return { direction: 'c2a', method: 'session/prompt', body: JSON.stringify({ jsonrpc: '2.0', id: k, method: 'session/prompt', params: { sessionId: 'acp', prompt: [{ type: 'text', text: `prompt p${k}x about the scheduler` }] } }) };
  if (r === 10) return { direction: 'a2c', method: 'session/update', body: update({ sessionUpdate: 'tool_call', toolCallId: `t${k}`, title: `Edit job${k}.ts`, kind: 'edit', status: 'completed', content: [{ type: 'diff', path: `/p/src/job${k}.ts`, oldText: 'x'.repeat(300), newText: `export const d${k}x = ${'y'.repeat(300)};` }] }) };
  if (r === 0) return { direction: 'a2c', method: null, body: JSON.stringify({ jsonrpc: '2.0', id: k - 19, result: { stopReason: 'end_turn' } }) };
  return { direction: 'a2c', method: 'session/update', body: update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ` c${k}x ${'lorem ipsum '.repeat(8)}` } }) };
}

let k = 0;
async function burst(): Promise<void> {
  for (;;) {
    const pending: Array<Promise<{ seq: number }>> = [];
    for (let i = 0; i < 100; i++) pending.push(log.append({ sessionId, ...message(++k) }));
    // Each seq is printed only after its own append resolved.
    const seqs = await Promise.all(pending.map((p) => p.then((m) => m.seq)));
    process.stdout.write(`${seqs.join('\n')}\n`);
  }
}
if (path) void burst();
