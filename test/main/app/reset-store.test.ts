import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { tempDir } from '../../support/app-server';

let core: AppCore | null = null;
afterEach(async () => {
  await core?.dispose();
  core = null;
});

describe('app.resetStore on a healthy store', () => {
  it('is refused as a request that does not apply (not an internal error), and moves nothing', async () => {
    const dataDir = tempDir('sb-reset-');
    core = new AppCore({ dataDir, transport: 'browser', version: 'test' });
    const before = readdirSync(dataDir).sort();
    const r = await core.router.invoke('app.resetStore', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('healthy') } });
    expect(readdirSync(dataDir).sort()).toEqual(before);
    expect(core.store.status.ok).toBe(true);
  });

  it('app.openExternal refuses a link it will not open as a refusal, never an internal error', async () => {
    core = new AppCore({ dataDir: tempDir('sb-reset-'), transport: 'browser', version: 'test', openExternal: async () => true });
    for (const url of ['file:///etc/passwd', 'https:no-slashes', 'javascript:alert(1)']) {
      const r = await core.router.invoke('app.openExternal', { url });
      expect(r.ok, url).toBe(false);
      expect(!r.ok && r.error.code, url).not.toBe('internal');
    }
  });
});
