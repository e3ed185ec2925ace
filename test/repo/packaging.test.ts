import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { listPackage, statFile } from '@electron/asar';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { DebugLogger } from 'builder-util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

/**
 * The installable packages (electron-builder: AppImage and deb, dmg, NSIS). The Electron binary cannot be
 * downloaded here, so what can be checked is: the configuration passes electron-builder's own validation;
 * a real electron-builder run, given a stand-in Electron folder, packs an app.asar holding the built app
 * and its native modules and nothing else; the icons exist in every size and format.
 */

const ICON_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];
const iconsDir = join(repoRoot, 'resources', 'icons');

const validated = async (change: (config: Record<string, unknown>) => void = () => undefined) => {
  // Validation normalises the config in place: each check gets its own copy.
  const config = structuredClone(await getConfig(repoRoot, null, null));
  change(config as Record<string, unknown>);
  await validateConfiguration(config, new DebugLogger(false));
  return config;
};

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (file: string): [number, number] => {
  const b = readFileSync(file);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
};

describe('packaging configuration', () => {
  // The packaged app's Electron fuses (flipped in the binary at package time, before signing): nobody can
  // turn a shipped Switchboard into a plain Node (ELECTRON_RUN_AS_NODE), hand it NODE_OPTIONS or --inspect,
  // or make it load code from outside its integrity-checked app.asar.
  it('sets the security fuses', async () => {
    const config = await validated();
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });

  it('would refuse a misspelt fuse (the check above has teeth)', async () => {
    await expect(validated((c) => (c.electronFuses = { ...(c.electronFuses as object), runAsnode: false }))).rejects.toThrow(/electronFuses/);
  });

  it('passes electron-builder validation, with the targets of each platform, asar, and the icons', async () => {
    const config = await validated();
    expect(config.asar).toBe(true);
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    for (const icon of [config.linux?.icon, config.mac?.icon, config.win?.icon]) expect(existsSync(join(repoRoot, String(icon)))).toBe(true);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
    expect(readFileSync(join(repoRoot, 'scripts', 'dist.mjs'), 'utf8')).toContain('electron-builder/cli.js');
  });

  it('would refuse an unknown option (the validation has teeth)', async () => {
    await expect(validated((c) => ((c.linux as Record<string, unknown>).targett = ['deb']))).rejects.toThrow(/configuration\.linux/);
  });

  it('the app icon exists as SVG, as PNG in every size, as .icns and as .ico', () => {
    expect(readFileSync(join(iconsDir, 'icon.svg'), 'utf8')).toContain('<svg');
    for (const size of ICON_SIZES) expect(pngSize(join(iconsDir, `${size}x${size}.png`))).toEqual([size, size]);
    expect(pngSize(join(iconsDir, 'icon.png'))).toEqual([1024, 1024]);
    const icns = readFileSync(join(iconsDir, 'icon.icns'));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const ico = readFileSync(join(iconsDir, 'icon.ico'));
    expect([...ico.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    // 16 to 256 pixels (256 is written as 0 in the directory).
    const count = ico.readUInt16LE(4);
    const widths = Array.from({ length: count }, (_, i) => ico[6 + i * 16] || 256);
    expect(widths).toEqual(expect.arrayContaining([16, 32, 48, 256]));
  });
});

describe.runIf(process.platform === 'linux')('what electron-builder packs', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sb-pack-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('the built app (out/, package.json) and the native modules with their runtime dependencies: no sources, tests, benchmarks or maps', () => {
    expect(existsSync(join(repoRoot, 'out', 'main', 'index.js')), 'the app is built first (the test setup builds it)').toBe(true);
    // A stand-in for the Electron folder electron-builder would download; native modules are not rebuilt.
    const electronDist = join(tmp, 'electron');
    mkdirSync(electronDist);
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    const output = join(tmp, 'dist');
    // The same configuration less the fuses: they are flipped in a real Electron binary, which the stand-in is not.
    const { electronFuses: _fuses, ...config } = JSON.parse(readFileSync(join(repoRoot, 'electron-builder.json'), 'utf8')) as Record<string, unknown>;
    const configFile = join(tmp, 'electron-builder.json');
    writeFileSync(configFile, JSON.stringify({ ...config, $schema: undefined }));
    const r = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules', 'electron-builder', 'cli.js'), '--linux', 'dir', '--publish', 'never', '--config', configFile, `-c.electronDist=${electronDist}`, '-c.npmRebuild=false', `-c.directories.output=${output}`],
      { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, CI: 'true' }, timeout: 240_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const resources = join(output, 'linux-unpacked', 'resources');
    const archive = join(resources, 'app.asar');
    const packed = listPackage(archive, { isPack: false })
      .filter((f) => !('files' in statFile(archive, f.replace(/^[\\/]/, ''), false)))
      .map((f) => f.replace(/^[\\/]/, '').replace(/\\/g, '/'));
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
    const unpacked = walk(join(resources, 'app.asar.unpacked')).map((f) => relative(join(resources, 'app.asar.unpacked'), f).replace(/\\/g, '/'));
    const files = [...packed, ...unpacked];

    // What the app needs.
    for (const f of ['package.json', 'out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']) expect(files).toContain(f);
    expect(unpacked).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(unpacked.some((f) => /^node_modules\/node-pty\/.*pty\.node$/.test(f))).toBe(true);
    // The dev container CLI is run by a node outside the app (the packaged app cannot run as Node): a real file.
    expect(unpacked).toContain('node_modules/@devcontainers/cli/devcontainer.js');
    const packagedJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string };
    expect(files).toContain(packagedJson.main);

    // Nothing more: top-level entries are out/, package.json and node_modules of production dependencies only.
    // Package names of the production dependencies (electron-builder may hoist a nested one).
    const prod = new Set(
      spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: repoRoot, encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l.includes('node_modules'))
        .map((l) => /node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(l.replace(/\\/g, '/'))?.[1]),
    );
    const packageOf = (f: string) => /^(?:node_modules\/(?:@[^/]+\/)?[^/]+\/)*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1];
    const outside = files.filter((f) => !(f === 'package.json' || f.startsWith('out/') || prod.has(packageOf(f))));
    expect(outside).toEqual([]);
    expect(files.filter((f) => /\.(map|ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => /^(src|test|bench|scripts|resources)\//.test(f))).toEqual([]);
    expect(files).not.toContain('out/main/server.js');
    // The bundled JS dependencies are not shipped twice: only native modules (and what they load) are.
    for (const bundled of ['zod', 'ws', '@agentclientprotocol/sdk', '@modelcontextprotocol/sdk', 'react', 'monaco-editor']) {
      expect(files.some((f) => f.startsWith(`node_modules/${bundled}/`))).toBe(false);
    }
    // No C sources of SQLite or node-pty.
    expect(files.filter((f) => /\.(c|cc|cpp|h)$/.test(f))).toEqual([]);
  }, 300_000);
});
