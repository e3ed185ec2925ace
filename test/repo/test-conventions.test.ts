import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

/**
 * What keeps the test suite free of retries (issue 23): no project retries, every `expect.poll` in the
 * end-to-end tests says how long it waits (vitest's default is 1 s, too short for a loaded machine), and every
 * end-to-end suite runs on test/support/app-suite.ts (the cleanup that makes a suite safe).
 */

/** The `expect.poll(...)` calls of a source file that give no `timeout`: their lines. */
export function untimedPolls(fileName: string, text: string): number[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.getText(source) === 'expect.poll') {
      const options = node.arguments[1];
      const timed = options !== undefined && (!ts.isObjectLiteralExpression(options) || options.properties.some((p) => p.name?.getText(source) === 'timeout'));
      if (!timed) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

const e2eDir = join(repoRoot, 'test/e2e');
const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourcesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

describe('test conventions', () => {
  it('finds an untimed poll (and only that) in a sample', () => {
    const sample = [
      "await expect.poll(() => page.title()).toBe('x');",
      "await expect.poll(() => page.title(), { timeout: WAIT.page }).toBe('x');",
      "await expect.poll(() => page.title(), { interval: 50 }).toBe('x');",
      "const text = `expect.poll(() => 1).toBe(1)`;",
    ].join('\n');
    expect(untimedPolls('sample.ts', sample)).toEqual([1, 3]);
  });

  it('every poll in the end-to-end tests and their support says how long it waits', () => {
    const files = [...sourcesUnder(e2eDir), ...sourcesUnder(join(repoRoot, 'test/support'))];
    const untimed = files.flatMap((f) => untimedPolls(f, readFileSync(f, 'utf8')).map((line) => `${relative(repoRoot, f)}:${line}`));
    expect(untimed, 'give each a timeout sized to what it waits for (test/support/waits.ts)').toEqual([]);
  });

  it('every end-to-end suite runs on app-suite', () => {
    const suites = readdirSync(e2eDir).filter((f) => f.endsWith('.test.ts'));
    expect(suites.length).toBeGreaterThan(20);
    expect(suites.filter((f) => !readFileSync(join(e2eDir, f), 'utf8').includes("from '../support/app-suite'"))).toEqual([]);
  });

  it('no vitest project retries a failed test', () => {
    expect(readFileSync(join(repoRoot, 'vitest.config.ts'), 'utf8')).not.toMatch(/\bretry\s*:/);
  });
});
