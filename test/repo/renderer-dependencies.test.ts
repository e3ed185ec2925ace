import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { repoRoot } from '../support/app-server';

/**
 * The renderer's allowed dependencies (as VS Code's code-import-patterns): a feature stands on its own, and
 * the parts below the features do not know them.
 *   features/<name>/  imports its own files, app/, ui/, ipc/, state/, @shared, packages, and other features'
 *                     index.ts only, with no cycle between features;
 *   app/ (the shell and its services), ui/ (generic components), state/ and ipc/ import no feature
 *                     (features register through app/contributions; main.tsx and features/index.ts compose);
 *   state/ and ipc/   sit below app/ and ui/.
 * No cycle between the parts (each feature, app, ui, state, ipc) either: ui/ builds on the shell's services
 * (the api context, theme, typing pause, safe terminal), so nothing in app/ imports ui/.
 */
const R = '^src/renderer/src/';

const rules: IForbiddenRuleType[] = [
  {
    name: 'feature-imports-only-allowed-layers',
    comment: 'A feature imports app/, ui/, ipc/, state/, @shared, packages and other features.',
    severity: 'error',
    from: { path: `${R}features/[^/]+/` },
    // resources/: the app's own icons (the About tab shows one).
    to: { couldNotResolve: false, pathNot: [`${R}(features|app|ui|ipc|state)/`, '^src/shared/', 'node_modules', '^resources/icons/'] },
  },
  {
    name: 'feature-imports-other-features-by-index',
    comment: "Another feature's files are its own: import what its index.ts exports.",
    severity: 'error',
    from: { path: `${R}features/([^/]+)/` },
    to: { path: `${R}features/[^/]+/`, pathNot: [`${R}features/$1/`, `${R}features/[^/]+/index\\.tsx?$`] },
  },
  {
    name: 'shell-knows-no-feature',
    comment: 'app/, ui/, state/ and ipc/ do not import features (features register through app/contributions).',
    severity: 'error',
    from: { path: `${R}(app|ui|ipc|state)/` },
    to: { path: `${R}features/` },
  },
  {
    name: 'state-and-ipc-below-the-shell',
    severity: 'error',
    from: { path: `${R}(ipc|state)/` },
    to: { path: `${R}(app|ui)/` },
  },
];

/** Each feature, and each of app/, ui/, ipc/ and state/, as one node: a cycle between two of them. */
const partCycle: IForbiddenRuleType = { name: 'no-cycle-between-parts', severity: 'error', from: { path: R }, to: { circular: true } };

async function violations(baseDir: string, ruleSet: IForbiddenRuleType[], extra: Partial<ICruiseOptions> = {}): Promise<string[]> {
  const r = await cruise(
    ['src/renderer/src'],
    {
      baseDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: ruleSet },
      // Resolves @shared/... (the tsconfig's paths).
      tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') },
      ...extra,
    },
    undefined,
    { tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') } },
  );
  const output = r.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${[v.from, ...(v.cycle?.length ? v.cycle.map((c) => c.name) : [v.to])].join(' → ')}`);
}

async function check(baseDir: string): Promise<string[]> {
  const files = await violations(baseDir, rules);
  const parts = await violations(baseDir, [partCycle], { collapse: `${R}(features/[^/]+|app|ui|ipc|state)/` });
  return [...files, ...parts];
}

describe('renderer dependencies', () => {
  it('features stand on their own: each imports the shell, ui, ipc, state, @shared and other features’ index only, without cycles', async () => {
    expect(await check(repoRoot)).toEqual([]);
  }, 90_000);

  it('fails on a tree that breaks each rule (the check itself works)', async () => {
    const found = await check(path.join(repoRoot, 'test/fixtures/renderer-dependencies'));
    const text = found.join('\n');
    expect(text).toContain('feature-imports-only-allowed-layers: src/renderer/src/features/alpha/name.ts → src/main/thing.ts');
    expect(text).toContain('feature-imports-other-features-by-index: src/renderer/src/features/alpha/name.ts → src/renderer/src/features/beta/secret.ts');
    expect(text).toContain('shell-knows-no-feature: src/renderer/src/app/shell.ts → src/renderer/src/features/alpha/index.ts');
    expect(text).toContain('shell-knows-no-feature: src/renderer/src/ui/label.ts → src/renderer/src/features/beta/index.ts');
    expect(text).toContain('state-and-ipc-below-the-shell: src/renderer/src/state/tabs.ts → src/renderer/src/app/shell.ts');
    expect(found.filter((v) => v.startsWith('no-cycle-between-parts')).join('\n')).toMatch(/features\/(alpha|beta)\//);
    // The fixture's ipc/ breaks nothing, and nothing flags it.
    expect(text).not.toContain('ipc/client.ts');
  }, 90_000);
});
