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
