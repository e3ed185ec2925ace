import path from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { repoRoot } from './app-server';

/** One pass of dependency-cruiser over `paths` under `baseDir` (tsconfig paths resolved, type imports included). */
export async function cruiseTree(baseDir: string, paths: string[], forbidden: IForbiddenRuleType[]): Promise<ICruiseResult> {
  const r = await cruise(
    paths,
    {
      baseDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden },
      tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') },
    },
    undefined,
    { tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') } },
  );
  return r.output as ICruiseResult;
}

/** The violations of the rules named `names` (all when absent): `rule: from → to` (a cycle: its files in order). */
export function violationsOf(output: ICruiseResult, names?: (name: string) => boolean): string[] {
  return output.summary.violations
    .filter((v) => !names || names(v.rule.name))
    .map((v) => `${v.rule.name}: ${[v.from, ...(v.cycle?.length ? v.cycle.map((c) => c.name) : [v.to])].join(' → ')}`);
}

/**
 * Cycles between parts (a part: what `partOf` says a file belongs to; null: none), whether or not a file cycle
 * makes them: the strongly connected parts of the graph of which part imports which, each with the imports that
 * tie it: `${rule}: a ⇄ b (file → file; …)`.
 */
export function partCycles(output: ICruiseResult, partOf: (file: string) => string | null, rule: string): string[] {
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
    return `${rule}: ${scc.join(' ⇄ ')} (${ties.join('; ')})`;
  });
}
