import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

const require = createRequire(join(repoRoot, 'package.json'));
const semver = require('semver') as { minVersion(range: string): { version: string } | null; satisfies(v: string, range: string): boolean };

/** One truth about the Node.js Switchboard needs: the README, package.json's engines and every direct dependency agree. */
describe('the Node.js version', () => {
  it('the README says what package.json declares, and every direct dependency accepts it', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const least = semver.minVersion(pkg.engines.node)!.version;
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const said = /Node\.js (\d+\.\d+(?:\.\d+)?) or newer/.exec(readme)?.[1];
    expect(said && semver.minVersion(said)!.version).toBe(least);
    const refusing: string[] = [];
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
      let engines: string | undefined;
      try {
        engines = (require(`${name}/package.json`) as { engines?: { node?: string } }).engines?.node;
      } catch {
        continue;
      }
      if (engines && !semver.satisfies(least, engines)) refusing.push(`${name} needs node ${engines}`);
    }
    expect(refusing).toEqual([]);
  });
});
