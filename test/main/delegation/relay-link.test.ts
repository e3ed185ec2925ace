/**
 * The core's end of a session's relay (relay-link.ts) reads what a host sends as untrusted: real processes on this
 * machine stand in for the host's relay. A relay that says nonsense, names a path that is not one, or floods one
 * line is refused or ended, in a sentence, never trusted; the real relay passes lines both ways and drops a
 * connection whose line is not a request.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRelay, type RelayLink } from '../../../src/main/core/delegation/relay-link';
import { delegationServerFile } from '../../../src/main/core/delegation/server-bundle';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-relay-')));
const host = new LocalHost();
const links: RelayLink[] = [];
afterAll(() => {
  for (const l of links) l.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** A "relay" that runs `body` (node), as a hostile host's could. */
function fakeRelay(name: string, body: string): string {
  const file = join(root, `${name}.cjs`);
  writeFileSync(file, body);
  return file;
}

describe('the relay link', () => {
  it('refuses a relay that names no absolute socket path, and says why when it ends before listening', async () => {
    const file = fakeRelay('liar', `process.stdout.write(JSON.stringify({ t: 'ready', socket: '../../etc/x', node: '/usr/bin/node', file: '/x' }) + '\\n' + 'not json\\n'); setTimeout(() => process.exit(3), 50);`);
    await expect(startRelay(host, file, () => null)).rejects.toThrow(/its relay ended before it listened/);
  });

  it('ends a relay that floods one line', async () => {
    const file = fakeRelay('flood', `const chunk = 'x'.repeat(1 << 20); const go = () => process.stdout.write(chunk, go); go();`);
    await expect(startRelay(host, file, () => null)).rejects.toThrow(/longer than|ended before it listened/);
  });

  it('passes lines both ways through the real relay, and drops a connection whose line is not a request', async () => {
    const file = await delegationServerFile(join(root, 'bundle'));
    const seen: string[] = [];
    const link = await startRelay(host, file, (line) => {
      seen.push(line);
      if (!line.startsWith('{')) return null;
      return Promise.resolve({ id: 7, ok: true, text: `echo ${line.length}` });
    });
    links.push(link);
    const talk = (line: string) =>
      new Promise<{ data: string; closed: boolean }>((resolve) => {
        const s = createConnection(link.socket);
        let data = '';
        s.setEncoding('utf8');
        s.on('data', (d: string) => {
          data += d;
          if (data.endsWith('\n')) {
            s.end();
            resolve({ data, closed: false });
          }
        });
        s.on('close', () => resolve({ data, closed: true }));
        s.write(`${line}\n`);
      });
    expect(await talk('{"id":7}')).toEqual({ data: '{"id":7,"ok":true,"text":"echo 8"}\n', closed: false });
    expect(await talk('garbage')).toEqual({ data: '', closed: true });
    expect(seen).toEqual(['{"id":7}', 'garbage']);
  }, 60_000);
});
