import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { repoRoot } from '../support/app-server';

/** Import cycles between source files, type-only imports included (they still tie the files' designs together). */
async function cycles(paths: string[]): Promise<string[]> {
  const r = await cruise(paths, {
    baseDir: repoRoot,
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    validate: true,
    ruleSet: { forbidden: [{ name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } }] },
  }, undefined, { tsConfig: { fileName: 'tsconfig.json' } });
  const output = r.output as ICruiseResult;
  return output.summary.violations.map((v) => [v.from, ...(v.cycle ?? []).map((c) => c.name)].join(' → '));
}

describe('source layout', () => {
  it('has no import cycle between files, type imports included', async () => {
    expect(await cycles(['src'])).toEqual([]);
  }, 60_000);

  it('finds a cycle when there is one (the check itself works)', async () => {
    const found = await cycles(['test/fixtures/import-cycle']);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain('b.ts');
  }, 60_000);
});
