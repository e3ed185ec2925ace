import { describe, expect, it } from 'vitest';
import { EscapeFilter, LOOP_BUDGET_PER_CHAR, LOOP_BUDGET_SCREENS, MAX_COLUMNS, MAX_LINES, MAX_PARAM, SLICE_WORK } from '../../../src/shared/terminal/escape-filter';

const HUGE = '2147483647';
const filter = (data: string, palette: 'allow' | 'drop' = 'drop'): string => new EscapeFilter({ palette }).write(data);

/** The CSI sequences of filtered output (the filter writes every CSI in its 7-bit form). */
function csis(out: string): Array<{ prefix: string; params: number[]; intermediates: string; final: string }> {
  const found = [];
  for (const m of out.matchAll(/\x1b\[([<=>?]?)([0-9:;]*)([ -/]*)([@-~])/g)) {
    const params = m[2]!.split(/[;:]/).filter(Boolean).map(Number);
    found.push({ prefix: m[1]!, params, intermediates: m[3]!, final: m[4]! });
  }
  return found;
}

/** Every number of every CSI in `out` is within what its function allows. */
function assertBounded(out: string): void {
  const over: string[] = [];
  for (const c of csis(out)) {
    const plain = !c.prefix && !c.intermediates;
    const max = plain && 'ABEFLMSTde'.includes(c.final) ? MAX_LINES : plain && '@CDGIPXZ`ab'.includes(c.final) ? MAX_COLUMNS : plain && c.final === 't' ? 16384 : MAX_PARAM;
    if (c.params.some((p) => p > max)) over.push(JSON.stringify(c));
  }
  expect(over).toEqual([]);
}

/** The output of `data` written in the given pieces, joined. */
function inPieces(data: string, cuts: number[], palette: 'allow' | 'drop' = 'drop'): string {
  const f = new EscapeFilter({ palette });
  let out = '';
  let at = 0;
  for (const cut of [...cuts, data.length]) {
    out += f.write(data.slice(at, cut));
    at = cut;
  }
  return out;
}

describe('EscapeFilter: numbers in CSI sequences', () => {
  it('caps the repeat count of REP (the sequence that froze the window)', () => {
    expect(filter(`x\x1b[${HUGE}b`)).toBe(`x\x1b[${MAX_COLUMNS}b`);
    expect(filter(`x\x1b[5b`)).toBe(`x\x1b[5b`);
  });

  it.each([
    ['@', MAX_COLUMNS], ['A', MAX_LINES], ['B', MAX_LINES], ['C', MAX_COLUMNS], ['D', MAX_COLUMNS], ['E', MAX_LINES], ['F', MAX_LINES],
    ['G', MAX_COLUMNS], ['I', MAX_COLUMNS], ['L', MAX_LINES], ['M', MAX_LINES], ['P', MAX_COLUMNS], ['S', MAX_LINES], ['T', MAX_LINES],
    ['X', MAX_COLUMNS], ['Z', MAX_COLUMNS], ['`', MAX_COLUMNS], ['a', MAX_COLUMNS], ['d', MAX_LINES], ['e', MAX_LINES],
  ])('caps the count of CSI %s at %i', (final, cap) => {
    expect(filter(`\x1b[${HUGE}${final}`)).toBe(`\x1b[${cap}${final}`);
    expect(filter(`\x1b[${HUGE}${HUGE}${HUGE}${final}`)).toBe(`\x1b[${cap}${final}`);
  });

  it('caps positions of CUP, HVP, DECSTBM and DECSLRM by axis', () => {
    expect(filter(`\x1b[${HUGE};${HUGE}H`)).toBe(`\x1b[${MAX_LINES};${MAX_COLUMNS}H`);
    expect(filter(`\x1b[${HUGE};${HUGE}f`)).toBe(`\x1b[${MAX_LINES};${MAX_COLUMNS}f`);
    expect(filter(`\x1b[1;${HUGE}r`)).toBe(`\x1b[1;${MAX_LINES}r`);
    expect(filter(`\x1b[${HUGE};${HUGE}s`)).toBe(`\x1b[${MAX_COLUMNS};${MAX_COLUMNS}s`);
  });

  it('caps counts of sequences with intermediates (SL, SR, DECIC, DECDC) and any other number', () => {
    expect(filter(`\x1b[${HUGE} @`)).toBe(`\x1b[${MAX_COLUMNS} @`);
    expect(filter(`\x1b[${HUGE} A`)).toBe(`\x1b[${MAX_COLUMNS} A`);
    expect(filter(`\x1b[${HUGE}'}`)).toBe(`\x1b[${MAX_COLUMNS}'}`);
    expect(filter(`\x1b[${HUGE}'~`)).toBe(`\x1b[${MAX_COLUMNS}'~`);
    expect(filter(`\x1b[${HUGE}J\x1b[${HUGE}K\x1b[${HUGE}m`)).toBe(`\x1b[${MAX_PARAM}J\x1b[${MAX_PARAM}K\x1b[${MAX_PARAM}m`);
    expect(filter(`\x1b[?${HUGE}h\x1b[>${HUGE};${HUGE}m\x1b[?${HUGE}$p`)).toBe(`\x1b[?${MAX_PARAM}h\x1b[>${MAX_PARAM};${MAX_PARAM}m\x1b[?${MAX_PARAM}$p`);
  });

  it('caps sub-parameters (colons) and keeps empty ones empty', () => {
    expect(filter(`\x1b[38:2::${HUGE}:0:99999999999m`)).toBe(`\x1b[38:2::${MAX_PARAM}:0:${MAX_PARAM}m`);
    expect(filter(`\x1b[${HUGE}:${HUGE}b`)).toBe(`\x1b[${MAX_COLUMNS}:${MAX_PARAM}b`);
    expect(filter('\x1b[4:3m\x1b[:5m')).toBe('\x1b[4:3m\x1b[:5m');
  });

  it('reads leading zeros as xterm does', () => {
    expect(filter(`\x1b[${'0'.repeat(10_000)}7A`)).toBe('\x1b[7A');
    expect(filter(`\x1b[${'0'.repeat(100)}${HUGE}b`)).toBe(`\x1b[${MAX_COLUMNS}b`);
  });

  it('keeps at most 32 parameters and 32 sub-parameters (xterm ignores the rest), whatever the length', () => {
    const out = filter(`\x1b[${`${HUGE};`.repeat(100_000)}m`);
    expect(out).toBe(`\x1b[${Array(32).fill(MAX_PARAM).join(';')}m`);
    const subs = filter(`\x1b[1${`:${HUGE}`.repeat(100)}m`);
    expect(subs.split(':').length - 1).toBe(32);
    const digits = filter(`\x1b[${'9'.repeat(5_000_000)}L`);
    expect(digits).toBe(`\x1b[${MAX_LINES}L`);
  });

  it('refuses window ops that ask for a huge window, keeps sane ones', () => {
    expect(filter(`\x1b[8;${HUGE};${HUGE}t`)).toBe('');
    expect(filter(`\x1b[8;24;${HUGE}t`)).toBe('');
    expect(filter(`\x1b[4;${HUGE};${HUGE}t`)).toBe('');
    expect(filter(`\x1b[${HUGE}t`)).toBe('');
    expect(filter('\x1b[8;24;80t\x1b[22;0t\x1b[14t')).toBe('\x1b[8;24;80t\x1b[22;0t\x1b[14t');
  });

  it('caps C1 (8-bit) CSI and DCS headers', () => {
    expect(filter(`\x9b${HUGE}b`)).toBe(`\x1b[${MAX_COLUMNS}b`);
    expect(filter(`\x1bP${HUGE};${HUGE}qDATA\x1b\\`)).toBe(`\x1bP${MAX_PARAM};${MAX_PARAM}qDATA\x9c\x1b\\`);
    expect(filter(`\x90${HUGE}$qm\x9c`)).toBe(`\x1bP${MAX_PARAM}$qm\x9c`);
  });

  it('drops sequences xterm ignores (bad prefix position, more than two intermediates)', () => {
    expect(filter(`a\x1b[1?${HUGE}bz`)).toBe('az');
    expect(filter(`a\x1b[ !"${HUGE}bz`)).toBe('az');
    expect(filter(`a\x1b[ 1bz`)).toBe('az');
  });

  it('executes controls inside a sequence and aborts it where xterm does', () => {
    expect(filter(`\x1b[${HUGE}\nb`)).toBe(`\n\x1b[${MAX_COLUMNS}b`);
    expect(filter(`\x1b[${HUGE}\x18b`)).toBe('\x18b');
    expect(filter(`\x1b[${HUGE}\x1b[${HUGE}b`)).toBe(`\x1b[${MAX_COLUMNS}b`);
    expect(filter(`\x1b[${HUGE}é${HUGE}b`)).toBe(`${HUGE}b`);
    expect(filter(`\x1b[${HUGE}😀b`)).toBe('b');
  });

  it('passes text and ordinary output through unchanged', () => {
    const ordinary = [
      'plain text, ünïcödé and emoji 😀\r\n',
      '\x1b[1;31mred\x1b[0m \x1b[38;2;255;128;0morange\x1b[m \x1b[38:5:202mx\x1b[0m',
      '\x1b[2J\x1b[H\x1b[10;20H\x1b[5A\x1b[3C\x1b[K\x1b[?25l\x1b[?1049h\x1b[?2004h\x1b[?1049l',
      '\x1b[1;24r\x1b7\x1b8\x1b(B\x1b)0\x1b=\x1b>\x1bM\x1bc',
      '\x1b]0;title\x07\x1b]2;other title\x1b\\',
      '\x1b]8;;https://example.com\x07link\x1b]8;;\x07',
      'x\x1b[5b\x1b[2@\x1b[3P\x1b[4X\x1b[2L\x1b[2M\x1b[3S\x1b[3T\x1b[2I\x1b[2Z',
    ].join('');
    expect(filter(ordinary).replace(/\x9c\x1b\\/g, '\x1b\\')).toBe(ordinary);
  });
});

describe('EscapeFilter: OSC', () => {
  it('removes palette and colour changes from agent output, whatever the terminator', () => {
    for (const seq of [
      '\x1b]4;1;rgb:ff/00/00\x07', '\x1b]4;1;#ff0000\x1b\\', '\x1b]10;#ff0000\x07', '\x1b]11;rgb:00/ff/00\x07', '\x1b]12;red\x9c',
      '\x1b]104\x07', '\x1b]104;1\x07', '\x1b]110\x07', '\x1b]111\x07', '\x1b]112\x07', '\x9d11;#000000\x07', '\x1b]0011;#ffffff\x07',
      '\x1b]17;#ffffff\x07', '\x1b]19;#ffffff\x07', '\x1b]5;0;red\x07', '\x1b]11;?\x07',
    ]) {
      expect(filter(`a${seq}b`).replace('\x1b\\', '')).toBe('ab');
    }
  });

  it('keeps them in the user\'s shell (palette: allow)', () => {
    expect(filter('\x1b]11;#000000\x07', 'allow')).toBe('\x1b]11;#000000\x07');
    expect(filter('\x1b]104\x07', 'allow')).toBe('\x1b]104\x07');
  });

  it('keeps titles and hyperlinks, drops OSC xterm would abort', () => {
    expect(filter('\x1b]8;id=1;https://example.com/a\x07t\x1b]8;;\x07')).toBe('\x1b]8;id=1;https://example.com/a\x07t\x1b]8;;\x07');
    expect(filter('a\x1b]x;y\x07b')).toBe('ab');
    expect(filter(`a\x1b]${'9'.repeat(100)};y\x07b`)).toBe('ab');
  });

  it('a C1 control inside an OSC cancels it, and the CSI it starts is capped', () => {
    expect(filter(`\x1b]8;;https://e.com\x9b${HUGE}b`)).toBe(`\x1b]8;;https://e.com\x18\x1b[${MAX_COLUMNS}b`);
    expect(filter(`\x1b]11;#000\x9b${HUGE}b`)).toBe(`\x1b[${MAX_COLUMNS}b`);
  });

  it('an ESC ending an OSC or a DCS starts the next sequence', () => {
    expect(filter(`\x1b]2;t\x1b[${HUGE}b`)).toBe(`\x1b]2;t\x9c\x1b[${MAX_COLUMNS}b`);
    expect(filter(`\x1bPqdata\x1b[${HUGE}L`)).toBe(`\x1bPqdata\x9c\x1b[${MAX_LINES}L`);
    expect(filter(`\x1b_apc ${HUGE}\x1b[${HUGE}L`)).toBe(`\x1b[${MAX_LINES}L`);
  });
});

describe('EscapeFilter: a stream', () => {
  const corpus = [
    `x\x1b[${HUGE}b`, `\x9b${HUGE}L`, `\x1b[1;${HUGE}r`, `\x1b[8;${HUGE};${HUGE}t`, `\x1b[38:2::${HUGE}:1:2m`,
    '\x1b]11;#ff0000\x1b\\', '\x1b]8;;https://example.com/x\x07link\x1b]8;;\x1b\\', 'héllo 😀\r\n', `\x1bP${HUGE}q#0\x1b\\`,
    `\x1b[?${HUGE}h`, `\x1b[${HUGE} @`, '\x1b_ignored\x9c', '\x1b[0;1;2;3;4;5m', `\x1b[${'0'.repeat(50)}12C`,
  ].join('');

  it('gives the same output when cut at any offset', () => {
    const whole = filter(corpus);
    for (let cut = 0; cut <= corpus.length; cut++) expect(inPieces(corpus, [cut])).toBe(whole);
  });

  it('gives the same output one character at a time', () => {
    expect(inPieces(corpus, Array.from({ length: corpus.length }, (_, i) => i))).toBe(filter(corpus));
  });

  it('a generated corpus: every number reaching xterm is bounded, any chunking gives the same output, filtering twice changes nothing', () => {
    // Deterministic pseudo-random generator (mulberry32) so a failure reproduces.
    let seed = 0x5eed;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const pieces = [
      '\x1b', '\x1b[', '\x9b', '\x90', '\x9d', '\x1b]', '\x1bP', '\x1b_', '\x9c', '\x07', '\x18', '\x1a', '\n', 'a', 'é', '😀', '\x7f',
      ';', ':', '?', '>', ' ', '$', "'", '"', '!', '0', '1', '9', HUGE, '99999', '000000', '4', '8', '11', '104', '24',
      ...'@ABCDEFGHIJKLMPSTXZ`abdefhlmrst}~q\\'.split(''),
    ];
    for (let round = 0; round < 400; round++) {
      let data = '';
      const len = 5 + Math.floor(rand() * 60);
      for (let k = 0; k < len; k++) data += pick(pieces);
      const whole = filter(data);
      assertBounded(whole);
      const cuts = Array.from({ length: 3 }, () => Math.floor(rand() * (data.length + 1))).sort((a, b) => a - b);
      expect(inPieces(data, cuts)).toBe(whole);
      expect(filter(whole)).toBe(whole);
    }
  });

  it('filters megabytes quickly and holds little (a flood of sequences)', () => {
    const flood = `x\x1b[${HUGE}b\x1b[${HUGE};${HUGE}H`.repeat(50_000) + 'text '.repeat(200_000);
    const out = filter(flood);
    assertBounded(out);
    expect(out.length).toBeLessThan(flood.length);
  });
});

describe('EscapeFilter: counts capped by the screen, work bounded per piece', () => {
  const ESC = '\x1b';
  /** Every final that takes a count or a position, with and without intermediates. */
  const COUNTED = [...'@ABCDEFGHILMPSTXZ`abdefr'.split('').map((f) => `[${HUGE}${f}`), `[${HUGE} @`, `[${HUGE} A`, `[${HUGE}'}`, `[${HUGE}'~`, `[${HUGE};${HUGE}H`];
  const sized = (rows: number, cols: number) => {
    const f = new EscapeFilter({ palette: 'drop' });
    f.resize(rows, cols);
    return f;
  };

  it('caps every count and position by the rows or columns it can affect', () => {
    const f = sized(24, 80);
    for (const seq of COUNTED) {
      const out = csis(f.write(`${ESC}${seq}`));
      expect(out.length, seq).toBe(1);
      const c = out[0]!;
      const lines = !c.intermediates && 'ABEFLMSTder'.includes(c.final);
      for (const [i, p] of c.params.entries()) expect(p, seq).toBeLessThanOrEqual(lines || ((c.final === 'H' || c.final === 'f') && i === 0) ? 24 : 80);
    }
    // Small counts are kept as they are; a resize applies to what follows.
    expect(f.write(`${ESC}[5L${ESC}[7b`)).toBe(`${ESC}[5L${ESC}[7b`);
    f.resize(3, 10);
    expect(f.write(`${ESC}[5L${ESC}[70b`)).toBe(`${ESC}[3L${ESC}[10b`);
  });

  /** xterm's work for a piece, modelled apart from the filter: a loop per count or per line fed, a screenful for whole-screen functions. */
  function work(piece: string, rows: number, cols: number): number {
    let w = piece.length;
    for (const c of csis(piece)) {
      const n = Math.max(1, c.params[0] ?? 1);
      if (c.intermediates || 'Jr'.includes(c.final)) w += rows * cols;
      else if ('LMST'.includes(c.final)) w += Math.min(n, rows) * (rows + cols);
      else if ('bIZ'.includes(c.final)) w += Math.min(n, cols);
      else if ('@PXK'.includes(c.final)) w += cols;
    }
    for (const ch of piece) if (ch === '\n' || ch === '\v' || ch === '\f') w += rows + cols;
    return w;
  }

  it('cuts floods of every counted final, text and line feeds into pieces of bounded work, whatever the size', () => {
    const rows = 50;
    const cols = 200;
    const most = SLICE_WORK + rows * cols + 64;
    const floods = [...COUNTED.map((seq) => `x${ESC}${seq}`), '\n', 'text ', `${ESC}[5;20r\n`, `${ESC}#8`, '😀'];
    for (const unit of floods) {
      for (const size of [64 * 1024, 1024 * 1024]) {
        const data = unit.repeat(Math.ceil(size / unit.length));
        const f = sized(rows, cols);
        const pieces = f.writeSliced(data);
        const heavy = pieces.filter((p) => work(p, rows, cols) > most);
        expect(heavy.length, JSON.stringify(unit)).toBe(0);
        // The same output as one write, and no piece splits a surrogate pair.
        expect(pieces.join(''), JSON.stringify(unit)).toBe(sized(rows, cols).write(data));
        for (const p of pieces) expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p), JSON.stringify(unit)).toBe(false);
      }
    }
  });

  it('looped functions draw on a budget that grows with the input: their work per character read is bounded, whatever the counts', () => {
    const rows = 50;
    const cols = 200;
    const cap = LOOP_BUDGET_SCREENS * rows * (rows + cols);
    for (const f of ['L', 'M', 'S', 'T', 'b']) {
      const unit = `x${ESC}[1000${f}`;
      const looped = (copies: number) => {
        const data = unit.repeat(copies);
        let w = 0;
        for (const c of csis(sized(rows, cols).write(data))) w += c.final === 'b' ? c.params[0]! : c.params[0]! * (rows + cols);
        expect(w, f).toBeLessThanOrEqual(cap + data.length * LOOP_BUDGET_PER_CHAR);
        return w;
      };
      const one = looped(10_000);
      expect(looped(100_000), f).toBeLessThanOrEqual(one * 11);
    }
  });

  it("an application's ordinary scrolling and redraws pass unchanged", () => {
    // A region scrolled by five lines, then those five lines redrawn, a thousand times over; a cleared screen redrawn.
    const line = 'y'.repeat(79);
    const scroll = `${ESC}[2;40r${ESC}[5S${ESC}[36;1H${`${line}\r\n`.repeat(5)}${ESC}[2;1H${ESC}[3L${`${line}\r\n`.repeat(3)}${ESC}[r`;
    const redraw = `${ESC}[H${ESC}[2J${`${line}\r\n`.repeat(40)}x${ESC}[70b`;
    const data = (scroll + redraw).repeat(1_000);
    expect(sized(40, 80).write(data)).toBe(data);
  });
});
