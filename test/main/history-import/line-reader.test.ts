import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readNewLines } from '../../../src/main/core/history-import/line-reader';

/**
 * The reader decodes a chunk's complete lines at once; these files put lines, multi-byte characters and
 * invalid bytes across its 4 MiB chunk boundaries, and check it reads what a plain split of the file gives.
 */

const CHUNK = 4 * 1024 * 1024;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function file(content: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-line-reader-'));
  dirs.push(dir);
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, content);
  return path;
}

interface Read {
  lines: Array<{ text: string; lineNo: number; invalid: boolean }>;
  skips: string[];
  offset: number;
}

function read(path: string, offset = 0): Read {
  const out: Read = { lines: [], skips: [], offset: 0 };
  const r = readNewLines(path, offset, { line: (text, lineNo, invalid) => out.lines.push({ text, lineNo, invalid }), skip: (reason) => out.skips.push(reason) });
  out.offset = r.offset;
  return out;
}

/** What a plain reading of `content`'s complete lines gives (empty lines are counted, not reported). */
function expected(content: Buffer): Read['lines'] {
  const end = content.lastIndexOf(10);
  const pieces: Buffer[] = [];
  for (let at = 0; at <= end; ) {
    const nl = content.indexOf(10, at);
    pieces.push(content.subarray(at, nl));
    at = nl + 1;
  }
  return pieces.flatMap((p, i) => (p.length ? [{ text: p.toString('utf8'), lineNo: i + 1, invalid: !Buffer.from(p.toString('utf8'), 'utf8').equals(p) }] : []));
}

describe("reading a session file's new lines", () => {
  it('lines, multi-byte characters and invalid bytes across chunk boundaries read as a plain split does', () => {
    const parts: Buffer[] = [];
    let size = 0;
    const add = (b: Buffer) => {
      parts.push(b);
      size += b.length;
    };
    let k = 0;
    // Lines of varied length, with "é" and "😀" throughout, up to past two chunk boundaries.
    while (size < 2 * CHUNK + 300_000) {
      k++;
      const len = (k * 7919) % 90_000;
      add(Buffer.from(`{"n":${k},"t":"${'aé😀b'.repeat(Math.floor(len / 8))}"}\n`, 'utf8'));
      if (k % 17 === 0) add(Buffer.from('\n'));
      if (k % 23 === 0) add(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    }
    // A line that spans the second boundary, with a 4-byte character cut by it.
    const at = 2 * CHUNK - (size % CHUNK) - 2;
    add(Buffer.from(`${'x'.repeat(Math.max(0, at))}😀${'y'.repeat(10)}\n`, 'utf8'));
    // An unfinished last line.
    add(Buffer.from('{"unfinished":'));
    const content = Buffer.concat(parts);
    const path = file(content);
    const got = read(path);
    expect(got.skips).toEqual([]);
    expect(got.lines).toEqual(expected(content));
    expect(got.lines.some((l) => l.invalid)).toBe(true);
    expect(got.offset).toBe(content.lastIndexOf(10) + 1);

    // The unfinished line completed, and a line added: read from where it stopped.
    appendFileSync(path, '"done"}\n{"next":1}\n');
    const more = read(path, got.offset);
    expect(more.lines.map((l) => [l.text, l.lineNo])).toEqual([
      ['{"unfinished":"done"}', 1],
      ['{"next":1}', 2],
    ]);
  });

  it('a line longer than a chunk is read whole, with the lines around it', () => {
    const long = `{"t":"${'é'.repeat(CHUNK)}"}`;
    const content = Buffer.from(`{"a":1}\n${long}\n{"b":2}\n`, 'utf8');
    const got = read(file(content));
    expect(got.lines.map((l) => l.text)).toEqual(['{"a":1}', long, '{"b":2}']);
    expect(got.lines.map((l) => l.lineNo)).toEqual([1, 2, 3]);
    expect(got.offset).toBe(content.length);
  });
});
