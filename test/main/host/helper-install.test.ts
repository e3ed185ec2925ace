/**
 * The scripts that install Switchboard's helper on a host (core/host/ssh/helper-install.ts), run by a real sh
 * with a real node and find, in a home folder of the test's own (what ssh would run there).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installScript, probeScript } from '../../../src/main/core/host/ssh/helper-install';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'sb-helper-home-'));
  homes.push(h);
  return h;
}

const versionOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

function run(h: string, script: string, input = ''): { code: number | null; out: string; err: string } {
  const r = spawnSync('sh', ['-c', script], { env: { ...process.env, HOME: h }, input, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A folder of ~/.switchboard-server last touched `days` ago. */
function aged(h: string, name: string, days: number): string {
  const dir = join(h, '.switchboard-server', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kept'), name);
  const t = Date.now() / 1000 - days * 86_400;
  utimesSync(dir, t, t);
  return dir;
}

describe('installing the helper on a host', () => {
  it('an upgrade removes only old version folders: the host keeps its checkpoints, agents and anything else', () => {
    const h = home();
    const helper = Buffer.from('// helper v2\n');
    const version = versionOf(helper);
    const keep = ['checkpoints', 'agents', 'imports', 'abcdef0123', '0123456789abcdef0', 'ABCDEF0123456789', 'aaaaaaaaaaaaaaaa.bak'].map((n) => aged(h, n, 30));
    const recent = aged(h, 'bbbbbbbbbbbbbbbb', 2);
    const old = aged(h, 'cccccccccccccccc', 30);
    const r = run(h, installScript(process.execPath, version), helper.toString());
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(h, '.switchboard-server', version, 'server.cjs'), 'utf8')).toBe('// helper v2\n');
    for (const dir of [...keep, recent]) expect(readFileSync(join(dir, 'kept'), 'utf8'), dir).toBeTruthy();
    expect(existsSync(old)).toBe(false);
  });

  it('runs only a copy whose bytes are the version: a changed or partial copy is sent again', () => {
    const h = home();
    const helper = Buffer.from('// the helper\n'.repeat(100));
    const version = versionOf(helper);
    const probe = () => run(h, probeScript(process.execPath, version)).out;
    expect(probe()).toMatch(/SB:need/);
    expect(run(h, installScript(process.execPath, version), helper.toString()).code).toBe(0);
    expect(probe()).toMatch(/SB:have/);
    const file = join(h, '.switchboard-server', version, 'server.cjs');
    writeFileSync(file, helper.subarray(0, 500));
    expect(probe()).toMatch(/SB:need/);
    writeFileSync(file, Buffer.concat([helper.subarray(0, -2), Buffer.from('X\n')]));
    expect(probe()).toMatch(/SB:need/);
    expect(run(h, installScript(process.execPath, version), helper.toString()).code).toBe(0);
    expect(probe()).toMatch(/SB:have/);
  });

  it('refuses bytes that are not the version announced, leaving the installed copy as it was', () => {
    const h = home();
    const helper = Buffer.from('// good\n');
    const version = versionOf(helper);
    expect(run(h, installScript(process.execPath, version), helper.toString()).code).toBe(0);
    const r = run(h, installScript(process.execPath, version), '// truncated');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/does not match/);
    expect(readFileSync(join(h, '.switchboard-server', version, 'server.cjs'), 'utf8')).toBe('// good\n');
  });

  it('refuses a version that is not one', () => {
    expect(() => installScript('node', '../../etc')).toThrow(/not a helper version/);
  });
});
