// Every request the contract names has exactly one handler once the core is composed: a request added to the
// contract without its handler would answer "unavailable" to the renderer at run time, and one registered twice
// throws while the core is made.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { requests, type RequestName } from '../../../src/shared/contract';
import { tempDir } from '../../support/app-server';

let core: AppCore | null = null;
afterAll(async () => {
  await core?.dispose();
});

it('the composed core handles every request of the contract', () => {
  core = new AppCore({ dataDir: join(tempDir('sb-every-request-'), 'data'), transport: 'browser', version: '0.0.0-test' });
  const names = Object.keys(requests) as RequestName[];
  expect(names.length).toBeGreaterThan(100);
  const missing = names.filter((name) => !core!.router.has(name));
  expect(missing).toEqual([]);
});
