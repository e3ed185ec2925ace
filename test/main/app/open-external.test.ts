import { afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { tempDir } from '../../support/app-server';

let core: AppCore | null = null;
afterEach(async () => {
  await core?.dispose();
  core = null;
});

describe('app.openExternal in the main process', () => {
  it('opens http(s) links (normalised) and refuses everything else, whatever the renderer sends', async () => {
    const opened: string[] = [];
    core = new AppCore({ dataDir: tempDir('sb-open-'), transport: 'browser', version: 'test', openExternal: async (url) => (opened.push(url), true) });
    expect(await core.router.invoke('app.openExternal', { url: 'https://Example.com/a b' })).toEqual({ ok: true, value: { opened: true } });
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'mailto:a@b.c', 'smb://host/share', 'https:no-slashes']) {
      const r = await core.router.invoke('app.openExternal', { url });
      expect(r.ok, url).toBe(false);
    }
    expect(opened).toEqual(['https://example.com/a%20b']);
  });
});
