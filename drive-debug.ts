import { spawn } from 'node:child_process';
import { LineSplitter, type SplitItem } from '/work/main/src/main/acp/line-splitter';
const child = spawn(process.execPath, ['--import', 'tsx', '/work/main/test/fixtures/scenario-agent/agent.ts'], { cwd: '/work/main', stdio: ['pipe', 'pipe', 'inherit'] });
const sp = new LineSplitter(16 * 1024 * 1024);
let raw: Buffer[] = [];
let total = 0;
child.stdout.on('data', (c: Buffer) => {
  raw.push(c); total += c.length;
  const out: SplitItem[] = [];
  sp.push(c, out);
  for (const o of out) {
    if (o.kind === 'oversized') console.log('OVERSIZED', o.size, o.head.subarray(0, 60).toString());
    else {
      const t = o.bytes.toString();
      if (t.length > 1000) console.log('BIGLINE', t.length, t.slice(0, 60), '...', JSON.stringify(t.slice(-30)));
      else {
        const m = JSON.parse(t);
        if (m.id === 0)         if (m.id === 1) child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: m.result.sessionId, prompt: [{ type: 'text', text: 'huge 50' }] } }) + '\n');
        if (m.id === 2) { console.log('done', total); child.kill(); }
      }
    }
  }
});
child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n');
