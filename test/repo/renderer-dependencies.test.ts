import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { repoRoot } from '../support/app-server';

/**
 * The renderer's allowed dependencies (as VS Code's code-import-patterns): a feature stands on its own, and
 * the parts below the features do not know them.
 *   features/<name>/  imports its own files, app/, ui/, ipc/, state/, @shared, packages, and other features'
 *                     index.ts only, with no cycle between features;
 *   app/ (the shell and its services), ui/ (generic components), state/ and ipc/ import no feature
 *                     (features register through app/contributions; main.tsx and features/index.ts compose);
 *   ui/               sits below app/: generic components use no shell service (a component that does lives in app/);
 *   state/ and ipc/   sit below app/ and ui/.
 * No cycle between the parts (each feature, app and ui, state, ipc) either.
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
    name: 'only-main-opens-the-connection',
    comment: 'app/startup.ts connects when it is imported: only the entry point may import it (a test importing it would connect).',
    severity: 'error',
    from: { pathNot: `${R}main\\.tsx$` },
    to: { path: `${R}app/startup\\.ts$` },
  },
  {
    name: 'ui-below-the-shell',
    comment: 'ui/ holds generic components: one that needs the shell’s services (api, theme, typing pause) belongs in app/.',
    severity: 'error',
    from: { path: `${R}ui/` },
    to: { path: `${R}app/` },
  },
  {
    name: 'state-and-ipc-below-the-shell',
    severity: 'error',
    from: { path: `${R}(ipc|state)/` },
    to: { path: `${R}(app|ui)/` },
  },
];

/** The part a renderer file belongs to: its feature, app, ui, ipc or state (null: the composition roots). */
const partOf = (file: string): string | null => /^src\/renderer\/src\/(features\/[^/]+|app|ui|ipc|state)\//.exec(file)?.[1] ?? null;

async function cruiseRenderer(baseDir: string): Promise<ICruiseResult> {
  const r = await cruise(
    ['src/renderer/src'],
    {
      baseDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: rules },
      // Resolves @shared/... (the tsconfig's paths).
      tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') },
    },
    undefined,
    { tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') } },
  );
  return r.output as ICruiseResult;
}

/**
 * Cycles between parts (each feature, app, ui, ipc, state), whether or not a file cycle makes them: the
 * strongly connected parts of the graph of which part imports which, each with the imports that tie it.
 */
function partCycles(output: ICruiseResult): string[] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const m of output.modules) {
    const from = partOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = partOf(d.resolved);
      if (!to || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, out);
      out.set(to, [...(out.get(to) ?? []), `${m.source} → ${d.resolved}`]);
    }
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found.map((scc) => {
    const ties = scc.flatMap((a) => scc.flatMap((b) => edges.get(a)?.get(b) ?? []));
    return `no-cycle-between-parts: ${scc.join(' ⇄ ')} (${ties.join('; ')})`;
  });
}

async function check(baseDir: string): Promise<string[]> {
  const output = await cruiseRenderer(baseDir);
  const files = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  return [...files, ...partCycles(output)];
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
    expect(text).toContain('no-cycle-between-parts: features/alpha ⇄ features/beta');
    // No file cycle makes this one: state/tabs.ts → app/shell.ts, app/theme.ts → state/tabs.ts.
    expect(text).toContain('no-cycle-between-parts: app ⇄ state');
    expect(text).toContain('ui-below-the-shell: src/renderer/src/ui/label.ts → src/renderer/src/app/theme.ts');
    expect(text).toContain('only-main-opens-the-connection: src/renderer/src/app/layout.ts → src/renderer/src/app/startup.ts');
    expect(text).not.toContain('src/renderer/src/main.tsx →');
    // The fixture's ipc/ breaks nothing, and nothing flags it.
    expect(text).not.toContain('ipc/client.ts');
  }, 90_000);
});
