import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentLog } from '../../../src/main/core/acp/connection/agent-log';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('AgentLog', () => {
  it('stays bounded (one rotated file) and returns the tail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-log-'));
    dirs.push(dir);
    const log = new AgentLog(join(dir, 'a.log'), 10_000);
    for (let i = 0; i < 2000; i++) {
      log.stderr(`line ${i}\n`);
      if (i % 100 === 0) log.flush();
    }
    log.write('note', 'x'.repeat(200_000));
    log.flush();
    expect(statSync(join(dir, 'a.log')).size).toBeLessThan(80_000);
    expect(existsSync(join(dir, 'a.log.1'))).toBe(true);
    expect(existsSync(join(dir, 'a.log.2'))).toBe(false);
    const tail = log.tail(5_000);
    expect(tail.truncated).toBe(true);
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(5_000);
    // A long message is logged by its head (64 KB) and its size.
    expect(log.tail(100_000).text).toContain('(200000 chars)');
    log.stderr('after\n');
    expect(log.tail(5_000).text).toMatch(/stderr after\n$/);
    log.dispose();
  });
});
