import { describe, expect, it } from 'vitest';
import { IpcFailure } from '../../../src/shared/contract';
import { Router } from '../../../src/main/core/base/router';

describe('Router: the main process does not trust the renderer', () => {
  const router = new Router();
  let calls = 0;
  router.handle('pty.resize', ({ cols, rows }) => {
    calls++;
    if (cols === 999) throw new IpcFailure('not_found', 'no such terminal');
    if (rows === 999) throw new Error('boom');
    return {};
  });

  it('rejects malformed params with a typed error and runs nothing', async () => {
    const r = await router.invoke('pty.resize', { id: 'x', cols: 'eighty', rows: -1, extra: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_params');
    const paths = r.error.issues!.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['cols', 'rows']));
    expect(r.error.message).toMatch(/cols/);
    expect(calls).toBe(0);
  });

  it('rejects params that are not an object at all', async () => {
    for (const params of ['text', 42, [1, 2], null]) {
      const r = await router.invoke('pty.resize', params);
      expect(r.ok).toBe(false);
    }
    expect(calls).toBe(0);
  });

  it('rejects methods outside the contract, including prototype keys', async () => {
    for (const method of ['fs.rm', '__proto__', 'constructor', 'toString', 42]) {
      const r = await router.invoke(method, {});
      expect(r).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    }
  });

  it('returns typed errors from handlers instead of throwing', async () => {
    expect(await router.invoke('pty.resize', { id: 'a', cols: 999, rows: 10 })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'no such terminal' },
    });
    expect(await router.invoke('pty.resize', { id: 'a', cols: 10, rows: 999 })).toMatchObject({ ok: false, error: { code: 'internal', message: 'boom' } });
    expect(await router.invoke('pty.resize', { id: 'a', cols: 80, rows: 24 })).toEqual({ ok: true, value: {} });
  });

  it('reports a contract method with no handler as unavailable', async () => {
    expect(await router.invoke('pty.kill', { id: 'a' })).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });
});

describe('Router: limits on what a request may hold', () => {
  const router = new Router();
  const stored: string[] = [];
  // As the store does: the value goes through JSON.stringify, which recurses.
  router.handle('settings.set', ({ value }) => {
    stored.push(JSON.stringify(value));
    return {};
  });
  const nested = (depth: number): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
    return v;
  };

  it('answers a request nested 100,000 levels deep with a typed validation error', async () => {
    for (const params of [{ key: 'agents.defaultAgent', value: nested(100_000) }, nested(100_000), { key: 'agents.defaultAgent', value: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown }]) {
      const r = await router.invoke('settings.set', params);
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/nested more than 64 levels/) } });
    }
    expect(stored).toEqual([]);
  });

  it('accepts ordinary nesting; answers a cyclic value and a graph of shared references (structured clone) with typed errors', async () => {
    // Ordinary nesting passes the limits (the key's own schema then refuses an object for a string setting).
    const ordinary = await router.invoke('settings.set', { key: 'agents.defaultAgent', value: nested(50) });
    expect(ordinary.ok ? '' : ordinary.error.message).not.toMatch(/nested|arrays and objects/);
    expect(await router.invoke('settings.set', { key: 'agents.defaultAgent', value: 'claude' })).toEqual({ ok: true, value: {} });
    stored.length = 0;
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(await router.invoke('settings.set', { key: 'agents.defaultAgent', value: cyclic })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    // 60 levels of [n, n]: 2^60 paths through 60 arrays, whatever walks it must not walk them all.
    const dag: unknown[] = [];
    let level = dag;
    for (let i = 0; i < 60; i++) {
      const next: unknown[] = [];
      level.push(next, next);
      level = next;
    }
    expect(await router.invoke('settings.set', { key: 'agents.defaultAgent', value: dag })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/arrays and objects/) } });
    expect(stored).toEqual([]);
  });
});
