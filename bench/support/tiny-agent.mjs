// The smallest ACP agent that starts: answers initialize and session/new, and nothing else. For benchmarks
// that time "until the agent started" without timing a real agent's own start-up.
import process from 'node:process';
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
let n = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined || !msg.method) return;
  if (msg.method === 'initialize') {
    send({ id: msg.id, result: { protocolVersion: 1, agentInfo: { name: 'tiny', version: '1.0.0' }, authMethods: [], agentCapabilities: { loadSession: false } } });
  } else if (msg.method === 'session/new') {
    send({ id: msg.id, result: { sessionId: `tiny-${++n}` } });
  } else send({ id: msg.id, error: { code: -32601, message: `not supported: ${msg.method}` } });
});
