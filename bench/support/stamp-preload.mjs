// Loaded into the server with NODE_OPTIONS=--import (benchmarks only): where the server's share of write → paint
// goes. Every `{t=<ms>:<i>}` stamp the agents write is timed when its bytes reach the server (a pipe's push) and
// when the server first writes it to a socket (the WebSocket frame, or anything else it sends on). On SIGWINCH
// the server writes { recv, send } (ms after the agent's write, each list in arrival order) as JSON to
// SWITCHBOARD_STAMP_FILE and starts again.
import { Buffer } from 'node:buffer';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.SWITCHBOARD_STAMP_FILE;
if (file && !process.argv.some((a) => a.includes('scenario-agent'))) {
  const now = () => performance.timeOrigin + performance.now();
  const re = /\{t=(\d+):(\d+)\}/g;
  let recv = [];
  let send = [];
  let sent = new Set();
  const scan = (chunk, into, once) => {
    if (chunk === null || chunk === undefined) return;
    const buf = typeof chunk === 'string' ? null : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? chunk : null;
    if (buf ? buf.indexOf('{t=') < 0 : typeof chunk !== 'string' || !chunk.includes('{t=')) return;
    const text = buf ? Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1') : chunk;
    const t = now();
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text))) {
      if (once) {
        const key = `${m[1]}:${m[2]}`;
        if (sent.has(key)) continue;
        sent.add(key);
      }
      into.push(t - Number(m[1]));
    }
  };
  const push = net.Socket.prototype.push;
  net.Socket.prototype.push = function (chunk, encoding) {
    // Only pipes (an agent's stdout); TCP sockets' data are the page's requests.
    if (this._handle && this._handle.constructor && this._handle.constructor.name === 'Pipe') scan(chunk, recv, false);
    return push.call(this, chunk, encoding);
  };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (this._handle && this._handle.constructor && this._handle.constructor.name === 'TCP') scan(chunk, send, true);
    return write.call(this, chunk, ...rest);
  };
  process.on('SIGWINCH', () => {
    writeFileSync(file, JSON.stringify({ recv, send }));
    recv = [];
    send = [];
    sent = new Set();
  });
}
