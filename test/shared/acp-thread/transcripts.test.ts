import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';
import { checkUpdate } from '../../../src/shared/acp-thread/update-check';
import { threadFromWire, type WireMessage } from '../../../src/shared/acp-thread';

// Recorded traffic of real agents, in the shared folder beside the repository (CI has it there).
const dir = join(repoRoot, '..', 'shared', 'agents', 'transcripts');
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];

it.runIf(Boolean(process.env.CI))('the recorded transcripts are there on CI', () => {
  expect(files.length, `no recorded transcripts in ${dir}`).toBeGreaterThan(10);
});

interface Line {
  dir: string;
  msg: Record<string, unknown>;
}

const read = (file: string): Line[] =>
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe.skipIf(files.length === 0)('recorded traffic of real agents', () => {
  it('every session/update they sent passes validation', () => {
    const rejected: string[] = [];
    let count = 0;
    for (const file of files) {
      for (const { dir: d, msg } of read(file)) {
        if (d !== 'a2c' || msg.method !== 'session/update') continue;
        count++;
        const check = checkUpdate((msg.params as { update: unknown }).update);
        if (!check.ok) rejected.push(`${file}: ${check.message}`);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(rejected).toEqual([]);
  });

  it('folds into threads without losing tool calls', () => {
    for (const file of files) {
      const wire: WireMessage[] = read(file)
        .filter((l) => l.dir === 'a2c' || l.dir === 'c2a')
        .map((l) => ({ direction: l.dir as 'a2c' | 'c2a', body: l.msg }));
      const thread = threadFromWire(wire);
      const announced = new Set(
        wire.flatMap((w) => {
          const m = w.body as { method?: string; params?: { update?: { toolCallId?: string } } };
          return m.method === 'session/update' && m.params?.update?.toolCallId ? [m.params.update.toolCallId] : [];
        }),
      );
      expect(Object.keys(thread.toolIndex).sort(), file).toEqual([...announced].sort());
    }
  });
});
