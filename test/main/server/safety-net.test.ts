import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';

describe('browser-mode safety net', () => {
  it('logs an error nothing caught, and a rejection nobody handled, and the process keeps running', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/main/server/safety-net-child.ts')], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.stdout).toContain('logged: Switchboard: unexpected error (still serving): thrown from a callback');
    expect(r.stdout).toContain('logged: Switchboard: unhandled rejection (still serving): rejected, never handled');
    expect(r.stdout).toContain('still running');
    expect(r.status).toBe(0);
  });
});
