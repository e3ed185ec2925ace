import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent, methods } from '@agentclientprotocol/sdk/unstable';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentLog } from '../../../src/main/core/acp/connection/agent-log';
import { AgentProcess } from '../../../src/main/core/acp/connection/agent-process';
import type { ProcessExit } from '../../../src/main/core/host/host';
import { StubAgentHost } from '../../support/stub-agent';

const dir = mkdtempSync(join(tmpdir(), 'sb-in-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an in-process process behind the Host port', () => {
  it('drives an AgentProcess like a real one: stdin, stdout, stop and exit', async () => {
    const host = new StubAgentHost();
    const { command, args } = host.define('echo', () =>
      agent({ name: 'echo' }).onRequest(methods.agent.initialize, (ctx) => ({ protocolVersion: ctx.params.protocolVersion, authMethods: [] })),
    );
    const out: string[] = [];
    let exitSeen: ProcessExit | null = null;
    const log = new AgentLog(join(dir, 'agent.log'));
    const proc = new AgentProcess(host, { command, args, env: {}, cwd: dir }, log, {
      onStdout: (chunk) => out.push(chunk.toString()),
      onStdoutEnd: () => undefined,
      onExit: (exit) => (exitSeen = exit),
    });
    expect(proc.pid).toBeNull();
    await proc.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`);
    await expect.poll(() => out.join(''), { timeout: 5_000 }).toContain('"id":1');
    expect(JSON.parse(out.join(''))).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
    const exit = await proc.stop(1000);
    expect(exit).toEqual({ code: null, signal: 'SIGTERM', error: null });
    expect(exitSeen).toEqual(exit);
    await expect(proc.write('late\n')).rejects.toThrow(/not running/);
    log.dispose();
  });
});
