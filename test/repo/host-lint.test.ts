import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

const fixture = readFileSync(join(repoRoot, 'test/fixtures/host-lint/reaches-around-host.ts'), 'utf8');
const eslint = new ESLint({ cwd: repoRoot });

/** The lines of the fixture the Host rule refuses, linted as if it lived at `path`. */
async function refusedLines(path: string): Promise<number[]> {
  const [result] = await eslint.lintText(fixture, { filePath: join(repoRoot, path) });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.line);
}

describe('the Host port lint rule', () => {
  it('refuses child_process, node-pty, fs writes and the watcher in a core concern (reads and type imports pass)', async () => {
    expect(await refusedLines('src/main/core/acp/session/probe.ts')).toEqual([2, 3, 4, 5, 6, 7]);
  }, 60_000);

  it('lets the Host implementations use them', async () => {
    expect(await refusedLines('src/main/core/host/local/probe.ts')).toEqual([]);
  }, 60_000);

  it("lets a data-folder exception write files, but still not spawn", async () => {
    expect(await refusedLines('src/main/core/store/database.ts')).toEqual([2, 3, 7]);
  }, 60_000);
});
