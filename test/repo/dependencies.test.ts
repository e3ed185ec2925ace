// The house's dependency rules, checked in one pass of dependency-cruiser over src/ (it was four): which core
// concern may import which (src/main/core), how the renderer's features and layers stand (src/renderer), and no
// import cycle between files anywhere. Each check also runs on a small fixture tree that breaks it, so that the
// check itself is shown to work.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ICruiseResult } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';
import { cruiseTree, partCycles, violationsOf } from '../support/dependency-graph';
import { acpLayerRules, CORE_DEPENDENCIES, concernOf, coreRules, NO_FILE_CYCLE, RENDERER_RULES, rendererPartOf } from '../support/dependency-rules';

const isCoreRule = (name: string): boolean => name.startsWith('core-') || name.startsWith('acp-');
const isRendererRule = (name: string): boolean => RENDERER_RULES.some((r) => r.name === name);

const ALL_RULES = [...coreRules(), ...acpLayerRules(), ...RENDERER_RULES, NO_FILE_CYCLE];

function coreProblems(baseDir: string, output: ICruiseResult): string[] {
  const unlisted = readdirSync(path.join(baseDir, 'src/main/core'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !(d.name in CORE_DEPENDENCIES))
    .map((d) => `concern-not-in-table: ${d.name}`);
  return [...unlisted, ...violationsOf(output, isCoreRule), ...partCycles(output, concernOf, 'no-cycle-between-concerns')];
}

const rendererProblems = (output: ICruiseResult): string[] => [...violationsOf(output, isRendererRule), ...partCycles(output, rendererPartOf, 'no-cycle-between-parts')];

let tree: ICruiseResult;
beforeAll(async () => {
  tree = await cruiseTree(repoRoot, ['src'], ALL_RULES);
  // The whole tree was read (a wrong path would pass every check on nothing).
  expect(tree.modules.filter((m) => m.source.startsWith('src/main/core/')).length).toBeGreaterThan(150);
  expect(tree.modules.filter((m) => m.source.startsWith('src/renderer/src/')).length).toBeGreaterThan(100);
}, 120_000);

describe('core dependencies', () => {
  it('each concern of src/main/core imports only what its row of the table allows, without cycles between concerns', () => {
    expect(coreProblems(repoRoot, tree)).toEqual([]);
  });

  it('fails on a tree that breaks the table (the check itself works)', async () => {
    const baseDir = path.join(repoRoot, 'test/fixtures/core-dependencies');
    const found = coreProblems(baseDir, await cruiseTree(baseDir, ['src'], ALL_RULES));
    const text = found.join('\n');
    expect(text).toContain('core-store: src/main/core/store/log.ts → src/main/core/acp/service.ts');
    expect(text).toContain('core-base: src/main/core/base/events.ts → src/main/core/host/port.ts');
    expect(text).toContain('core-stays-in-core: src/main/core/history/rows.ts → src/main/server/thing.ts');
    expect(text).toContain('concern-not-in-table: widgets');
    expect(text).toContain('acp-runtimes-below-supervisor-session-agents: src/main/core/acp/runtimes/runtime.ts → src/main/core/acp/supervisor/watch.ts');
    expect(text).not.toContain('src/main/core/acp/runtimes/typed.ts');
    expect(text).toContain('core-concerns-use-the-host-port: src/main/core/history/rows.ts → src/main/core/host/local/disk.ts');
    expect(found.filter((v) => v.startsWith('no-cycle-between-concerns')).join('\n')).toMatch(/acp ⇄ store .*core\/(store|acp)\//);
    // What the table allows is not flagged: acp on the store and the host port, host on base.
    expect(text).not.toMatch(/core-acp:|core-host:/);
  }, 90_000);
});

describe('renderer dependencies', () => {
  it('features stand on their own: each imports the shell, ui, ipc, state, @shared and other features’ index only, without cycles', () => {
    expect(rendererProblems(tree)).toEqual([]);
  });

  it('fails on a tree that breaks each rule (the check itself works)', async () => {
    const baseDir = path.join(repoRoot, 'test/fixtures/renderer-dependencies');
    const text = rendererProblems(await cruiseTree(baseDir, ['src/renderer/src'], ALL_RULES)).join('\n');
    expect(text).toContain('feature-imports-only-allowed-layers: src/renderer/src/features/alpha/name.ts → src/main/thing.ts');
    expect(text).toContain('feature-imports-other-features-by-index: src/renderer/src/features/alpha/name.ts → src/renderer/src/features/beta/secret.ts');
    expect(text).toContain('shell-knows-no-feature: src/renderer/src/app/shell.ts → src/renderer/src/features/alpha/index.ts');
    expect(text).toContain('shell-knows-no-feature: src/renderer/src/ui/label.ts → src/renderer/src/features/beta/index.ts');
    expect(text).toContain('ui-below-the-shell: src/renderer/src/ui/label.ts → src/renderer/src/app/theme.ts');
    expect(text).toContain('state-and-ipc-below-the-shell: src/renderer/src/state/tabs.ts → src/renderer/src/app/shell.ts');
    expect(text).toContain('no-cycle-between-parts: features/alpha ⇄ features/beta');
    // No file cycle makes this one: state/tabs.ts → app/shell.ts, app/theme.ts → state/tabs.ts.
    expect(text).toContain('no-cycle-between-parts: app ⇄ state');
    expect(text).toContain('only-main-opens-the-connection: src/renderer/src/app/layout.ts → src/renderer/src/app/startup.ts');
    expect(text).not.toContain('src/renderer/src/main.tsx →');
    // The fixture's ipc/ breaks nothing, and nothing flags it.
    expect(text).not.toContain('ipc/client.ts');
  }, 90_000);
});

describe('source layout', () => {
  it('has no import cycle between files, type imports included', () => {
    expect(violationsOf(tree, (name) => name === NO_FILE_CYCLE.name)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', async () => {
    const found = violationsOf(await cruiseTree(repoRoot, ['test/fixtures/import-cycle'], [NO_FILE_CYCLE]));
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain('b.ts');
  }, 60_000);
});
