import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { DebugLogger } from 'builder-util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';

/**
 * The packaged app's Electron fuses (flipped in the binary at package time, before signing): nobody can
 * turn a shipped Switchboard into a plain Node (ELECTRON_RUN_AS_NODE), hand it NODE_OPTIONS or
 * --inspect, or make it load code from outside its integrity-checked app.asar. The binary cannot be
 * built here: the configuration is loaded and validated as electron-builder does it.
 */
const validate = async (change: (config: Record<string, unknown>) => void = () => undefined) => {
  // Validation normalises the config in place (files become filters): each check gets its own copy.
  const config = structuredClone(await getConfig(repoRoot, null, null));
  change(config as Record<string, unknown>);
  await validateConfiguration(config, new DebugLogger(false));
  return config;
};

describe('packaging configuration', () => {
  it('is valid for electron-builder and sets the security fuses', async () => {
    const config = await validate();
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });

  it('would refuse a misspelt fuse (the check above has teeth)', async () => {
    await expect(validate((c) => (c.electronFuses = { ...(c.electronFuses as object), runAsnode: false }))).rejects.toThrow(/electronFuses/);
  });

  it('packs only the built app, into an asar', () => {
    const raw = JSON.parse(readFileSync(join(repoRoot, 'electron-builder.json'), 'utf8')) as { asar?: boolean; files?: string[] };
    expect(raw.asar).toBe(true);
    expect(raw.files).toEqual(['out/**', 'package.json']);
  });
});
