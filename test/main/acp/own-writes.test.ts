import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpWire } from '../../../src/main/core/acp/connection/acp-wire';
import { AgentLog } from '../../../src/main/core/acp/connection/agent-log';

/**
 * What Switchboard writes to an agent on its own (the hang watchdog's session/cancel, a withdrawn request's
 * $/cancel_request) goes out "now or never": never queued for an SSH host's reconnect. What the user asked
 * goes out as ever.
 */
let dir: string;
let log: AgentLog | null = null;
afterEach(() => {
  log?.flush();
  rmSync(dir, { recursive: true, force: true });
});

describe("Switchboard's own writes to an agent", () => {
  it('are written now or never; requests and the rest go the usual way', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-own-'));
    log = new AgentLog(join(dir, 'agent.log'));
    const usual: string[] = [];
    const nowOrNever: string[] = [];
    const wire = new AcpWire(
      { write: (d) => (usual.push(d), Promise.resolve()), writeNowOrNever: (d) => void nowOrNever.push(d) },
      () => null,
      log,
      { sessionOf: () => 's1', bindSession: () => {}, onUpdates: () => {}, onWarning: () => {}, readAhead: () => {} },
      1024 * 1024,
    );
    const writer = wire.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'acp-1', prompt: [] } });
    await writer.write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'acp-1' } });
    await writer.write({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 3 } });
    wire.notifyNowOrNever('session/cancel', { sessionId: 'acp-1' });
    const methods = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { method: string }).method);
    // The user's Stop (session/cancel through the connection) is delivered as ever.
    expect(methods(usual)).toEqual(['session/prompt', 'session/cancel']);
    expect(methods(nowOrNever)).toEqual(['$/cancel_request', 'session/cancel']);
  });
});

describe('a wire whose reader has gone', () => {
  it('drops what the agent sends after the SDK connection stopped reading, without throwing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-gone-'));
    log = new AgentLog(join(dir, 'agent.log'));
    const warnings: string[] = [];
    const wire = new AcpWire(
      { write: () => Promise.resolve(), writeNowOrNever: () => {} },
      () => null,
      log,
      { sessionOf: () => 's1', bindSession: () => {}, onUpdates: () => {}, onWarning: (_s, _k, m) => void warnings.push(m), readAhead: () => {} },
      1024 * 1024,
    );
    await wire.stream.readable.getReader().cancel();
    // An agent's request and an answer arriving in one chunk after the app closed its connection (a core closed mid-turn).
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: { sessionId: 'acp-1', path: '/x' } },
      { jsonrpc: '2.0', id: 7, result: {} },
    ].map((m) => JSON.stringify(m) + '\n');
    expect(() => {
      wire.receive(Buffer.from(lines.join('')));
      wire.flush();
    }).not.toThrow();
    await wire.drained();
    expect(warnings).toEqual([]);
  });
});
