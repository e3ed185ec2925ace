// Every exception to the Host lint rule is still needed: each file (or folder) it names is linted with that one
// entry taken out, and the Host rule must then refuse something there. An exception that names a removed file,
// or a folder where most files would pass anyway, is dead weight that hides the next real violation.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

const project = (await import(pathToFileURL(join(repoRoot, 'eslint.config.js')).href)) as {
  default: Linter.Config[];
  THIS_MACHINE: string[];
  WRITES_DATA_FOLDER: string[];
};
const { default: config, THIS_MACHINE, WRITES_DATA_FOLDER } = project;

const HOST_RULE = '@typescript-eslint/no-restricted-imports';

function filesOf(entry: string): string[] {
  const glob = entry.endsWith('/**');
  const path = join(repoRoot, glob ? entry.slice(0, -3) : entry);
  if (!existsSync(path)) return [];
  if (!glob) return [path];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name)) out.push(p);
    }
  };
  walk(path);
  return out;
}

/** The project's config with `entry` taken out of the exception list `list`. */
function without(list: readonly string[], entry: string): Linter.Config[] {
  return config.map((block) => (block.files === list ? { ...block, files: list.filter((f) => f !== entry) } : block));
}

describe('the Host rule exceptions', () => {
  for (const [name, list] of [
    ['writes the data folder', WRITES_DATA_FOLDER],
    ['this machine', THIS_MACHINE],
  ] as const) {
    for (const entry of list) {
      it(`${name}: ${entry} is still needed`, async () => {
        const files = filesOf(entry);
        expect(files, `${entry} names no file`).not.toEqual([]);
        const eslint = new ESLint({ cwd: repoRoot, overrideConfigFile: true, overrideConfig: without(list, entry) });
        const results = await eslint.lintFiles(files);
        const refused = results.filter((r) => r.messages.some((m) => m.ruleId === HOST_RULE)).map((r) => relative(repoRoot, r.filePath));
        expect(refused, `${entry}: no file needs the exception`).not.toEqual([]);
        if (entry.endsWith('/**')) {
          // A folder-wide exception holds only where most of its files need it; otherwise name the files.
          expect(refused.length * 2, `${entry}: only ${refused.join(', ')} need it; name them instead of the folder`).toBeGreaterThanOrEqual(files.length);
        }
      }, 60_000);
    }
  }
});
