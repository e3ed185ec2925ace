import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

const MAX_LINES = 800;
/** Files allowed over the limit for now, each with its reason (none). */
const ALLOWED: ReadonlyMap<string, string> = new Map();

/** Every file under `dir` over MAX_LINES lines, as "path: N lines" relative to `dir`'s parent. */
function longFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        const text = readFileSync(path);
        if (text.includes(0)) continue; // not text
        let lines = 0;
        for (const byte of text) if (byte === 0x0a) lines++;
        if (text.length > 0 && text[text.length - 1] !== 0x0a) lines++;
        if (lines > MAX_LINES) out.push(`${relative(join(dir, '..'), path)}: ${lines} lines`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const over = longFiles(join(repoRoot, 'src')).filter((f) => !ALLOWED.has(f.slice(0, f.indexOf(':'))));
    expect(over).toEqual([]);
  });

  it('a file over the limit is found (the check itself works)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-file-length-'));
    try {
      mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
      writeFileSync(join(dir, 'src', 'deep', 'long.ts'), 'x;\n'.repeat(MAX_LINES + 1));
      writeFileSync(join(dir, 'src', 'edge.ts'), 'x;\n'.repeat(MAX_LINES));
      expect(longFiles(join(dir, 'src'))).toEqual([`src/deep/long.ts: ${MAX_LINES + 1} lines`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
