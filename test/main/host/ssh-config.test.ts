import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { listSshAliases } from '../../../src/main/core/host/ssh/ssh-config';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

it('lists the aliases of an ssh_config and its includes, without patterns', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sbcfg-'));
  dirs.push(dir);
  await mkdir(join(dir, 'conf.d'));
  await writeFile(join(dir, 'conf.d', 'a.conf'), 'Host buildbox\n  HostName 10.0.0.2\n');
  await writeFile(join(dir, 'conf.d', 'b.conf'), 'Host=gpu "vm one"\n');
  await writeFile(
    join(dir, 'config'),
    [`Include ${join(dir, 'conf.d', '*.conf')}`, 'Host devbox devbox.lan # the dev VM', '  User me', 'Host *.internal !bastion', 'Host *', '  ServerAliveInterval 5', ''].join('\n'),
  );
  expect((await listSshAliases(join(dir, 'config'))).sort()).toEqual(['buildbox', 'devbox', 'devbox.lan', 'gpu', 'vm one'].sort());
  expect(await listSshAliases(join(dir, 'missing'))).toEqual([]);
});
