/**
 * A stream filter between untrusted terminal output and xterm.js. It bounds the numbers in escape
 * sequences before xterm's parser acts on them: one `CSI 2147483647 b` (repeat) or `CSI 2147483647 L`
 * (insert lines) makes xterm loop two billion times; a window op can ask for a window of any size.
 *
 * The filter follows xterm's own state machine (the VT500 parser of vt100.net as xterm.js 6 builds its
 * transition table, C1 controls, its limits of 32 parameters and 32 sub-parameters included), so it reads
 * every chunk as xterm will: text and strings pass through, each CSI and DCS header is rebuilt from what
 * was parsed with its numbers capped (or dropped when it has no harmless form), and a sequence split
 * across writes is held until its end. What the filter holds is bounded whatever the input.
 *
 * With `palette: 'drop'`, OSC sequences that set or reset colours (4, 5, 6, 10–19, 104–106, 110–119) are
 * removed: output must not restyle the app.
 *
 * Counts are capped by what they can affect: the screen's rows for lines, its columns for characters
 * (`resize`; until told, the largest screen the app makes). That alone still lets a few bytes cost a
 * screenful of work (`CSI 50 L` inserts fifty lines one by one, each a new line shifted in), so the
 * functions xterm loops over (insert, delete and scroll lines; repeat) draw on a budget that grows with
 * the input read (LOOP_BUDGET_PER_CHAR) up to a few screens: past it, their counts shrink, or they are
 * dropped. `writeSliced` also cuts the output into pieces of bounded work, each a separate write for
 * xterm, which lets the page draw between writes.
 */

/** The largest count or position on the vertical axis (lines): more than any screen has rows. */
export const MAX_LINES = 1000;
/** The largest count or position on the horizontal axis (columns), a repeat count included. */
export const MAX_COLUMNS = 1000;
/** The largest value of any other parameter (mode numbers go up to a few thousand). */
export const MAX_PARAM = 65535;
/** The largest window asked for by a window op (CSI 4 ; h ; w t, in pixels). */
export const MAX_WINDOW_PIXELS = 16384;
/** Work in one piece of `writeSliced`, in cells xterm touches (a few milliseconds of its time). */
export const SLICE_WORK = 32_768;
/** Cells of looped work (lines inserted, deleted or scrolled; characters repeated) each character read buys. */
export const LOOP_BUDGET_PER_CHAR = 16;
/** The most looped work saved up: this many full-screen sweeps of lines. */
export const LOOP_BUDGET_SCREENS = 4;

export interface EscapeFilterOptions {
  /** 'drop': OSC colour and palette sequences are removed (agent output); 'allow': kept (the user's shell). */
  palette: 'allow' | 'drop';
}

// xterm's Params: values saturate here, at most 32 parameters and 32 sub-parameters in all.
const SATURATE = 0x7fffffff;
const MAX_PARAMS = 32;
const MAX_SUBPARAMS = 32;

const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI_ENTRY = 3;
const CSI_PARAM = 4;
const CSI_INTERMEDIATE = 5;
const CSI_IGNORE = 6;
const SOS_PM_APC = 7;
const OSC = 8;
const DCS_ENTRY = 9;
const DCS_PARAM = 10;
const DCS_INTERMEDIATE = 11;
const DCS_IGNORE = 12;
const DCS_PASSTHROUGH = 13;

const ESC = '\x1b';
const ST = '\x9c';
const CAN = '\x18';

/** OSC numbers that set, query or reset colours. */
export const PALETTE_OSC: ReadonlySet<number> = new Set([4, 5, 6, 104, 105, 106, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]);

/** Codes that change the state in the ground state (everything else is text or an executed control). */
// eslint-disable-next-line no-control-regex -- escape bytes are what this looks for
const GROUND_SPECIAL = /[\x1b\x90\x98\x9b\x9d\x9e\x9f]/g;

const isExecutable = (c: number): boolean => c <= 0x17 || c === 0x19 || (c >= 0x1c && c <= 0x1f);
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** How the numbers of a sequence are capped. */
const GENERIC = 0;
const LINES = 1;
const COLUMNS = 2;
/** CUP, HVP: row; column. */
const ROW_COLUMN = 3;
type Caps = typeof GENERIC | typeof LINES | typeof COLUMNS | typeof ROW_COLUMN;

function capOf(caps: Caps, index: number, value: number, rows: number, cols: number): number {
  const max = caps === LINES || (caps === ROW_COLUMN && index === 0) ? rows : caps === COLUMNS || (caps === ROW_COLUMN && index === 1) ? cols : MAX_PARAM;
  return value > max ? max : value;
}

/**
 * Parameters as xterm's Params collects them: an empty parameter is 0, an empty sub-parameter -1; at most
 * 32 of each (fixed arrays: a sequence allocates nothing).
 */
class Params {
  readonly values = new Int32Array(MAX_PARAMS);
  private readonly digits = new Uint8Array(MAX_PARAMS);
  private readonly subs = new Int32Array(MAX_SUBPARAMS);
  /** The parameter each sub-parameter belongs to. */
  private readonly subOwner = new Uint8Array(MAX_SUBPARAMS);
  length = 1;
  private subCount = 0;
  private digitIsSub = false;
  private rejectDigits = false;
  private rejectSubDigits = false;

  reset(): void {
    this.length = 1;
    this.values[0] = 0;
    this.digits[0] = 0;
    this.subCount = 0;
    this.digitIsSub = false;
    this.rejectDigits = false;
    this.rejectSubDigits = false;
  }

  put(code: number): void {
    if (code === 0x3b) {
      this.digitIsSub = false;
      if (this.length >= MAX_PARAMS) {
        this.rejectDigits = true;
        return;
      }
      this.values[this.length] = 0;
      this.digits[this.length++] = 0;
    } else if (code === 0x3a) {
      this.digitIsSub = true;
      if (this.rejectDigits || this.subCount >= MAX_SUBPARAMS) {
        this.rejectSubDigits = true;
        return;
      }
      this.subOwner[this.subCount] = this.length - 1;
      this.subs[this.subCount++] = -1;
    } else {
      const digit = code - 0x30;
      if (this.rejectDigits) return;
      if (this.digitIsSub) {
        // Digits go to the last sub-parameter stored, as in xterm.
        if (this.rejectSubDigits || this.subCount === 0) return;
        const cur = this.subs[this.subCount - 1]!;
        this.subs[this.subCount - 1] = cur === -1 ? digit : Math.min(cur * 10 + digit, SATURATE);
      } else {
        const i = this.length - 1;
        this.values[i] = Math.min(this.values[i]! * 10 + digit, SATURATE);
        this.digits[i] = 1;
      }
    }
  }

  /** Marks parameter `i` as written (a value set from outside). */
  setDigits(i: number): void {
    this.digits[i] = 1;
  }

  /** The parameters as text, capped; sub-parameters by the generic cap. */
  format(caps: Caps, rows = MAX_LINES, cols = MAX_COLUMNS): string {
    let out = '';
    let s = 0;
    for (let i = 0; i < this.length; i++) {
      if (i) out += ';';
      if (this.digits[i]) out += capOf(caps, i, this.values[i]!, rows, cols);
      for (; s < this.subCount && this.subOwner[s] === i; s++) {
        const v = this.subs[s]!;
        out += v < 0 ? ':' : `:${v > MAX_PARAM ? MAX_PARAM : v}`;
      }
    }
    return out;
  }
}

/** Functions xterm runs once per unit of their count: insert, delete, scroll lines; repeat the last character. */
const LOOPED = new Set(['L', 'M', 'S', 'T', 'b']);
const LINE_FINALS = new Set(['A', 'B', 'E', 'F', 'L', 'M', 'S', 'T', 'd', 'e', 'r']);
const COLUMN_FINALS = new Set(['@', 'C', 'D', 'G', 'I', 'P', 'X', 'Z', '`', 'a', 'b', 's']);

/** How the numbers of a CSI sequence are capped, or null when it is refused (a window op asking for an absurd size). */
function csiCaps(prefix: string, intermediates: string, final: string, params: Params): Caps | null {
  if (prefix) return GENERIC;
  if (intermediates === '') {
    // DECSTBM (r: top; bottom) counts lines, DECSLRM (s: left; right) columns.
    if (LINE_FINALS.has(final)) return LINES;
    if (COLUMN_FINALS.has(final)) return COLUMNS;
    if (final === 'H' || final === 'f') return ROW_COLUMN;
    if (final === 't') {
      const v = params.values;
      const op = v[0]!;
      const a = params.length > 1 ? v[1]! : 0;
      const b = params.length > 2 ? v[2]! : 0;
      if (op === 4 && (a > MAX_WINDOW_PIXELS || b > MAX_WINDOW_PIXELS)) return null;
      if (op === 8 && (a > MAX_LINES || b > MAX_COLUMNS)) return null;
      if (op > MAX_LINES) return null;
    }
    return GENERIC;
  }
  // SL, SR (scroll left/right), DECIC, DECDC (insert/delete columns): counts of columns.
  if ((intermediates === ' ' && (final === '@' || final === 'A')) || (intermediates === "'" && (final === '}' || final === '~'))) return COLUMNS;
  return GENERIC;
}

export class EscapeFilter {
  private state = GROUND;
  private readonly params = new Params();
  /** Prefix byte (< = > ?) of a CSI or DCS; intermediates (0x20–0x2f) of an ESC, CSI or DCS sequence. */
  private prefix = '';
  private intermediates = '';
  /** OSC: reading its number ('id'), passing its text on ('pass'), or removing it ('drop'). */
  private osc: 'id' | 'pass' | 'drop' = 'id';
  private oscId = -1;
  /** The DCS header was refused: its data is removed too. */
  private dcsDrop = false;
  /** A non-ASCII character xterm drops began with a high surrogate: its low half is dropped too. */
  private dropLowSurrogate = false;
  private out: string[] = [];
  /** Finished pieces of the current write, and the work of the one being built (`out`). */
  private pieces: string[] = [];
  private work = 0;
  private rows = MAX_LINES;
  private cols = MAX_COLUMNS;
  /** Characters read in all, the position of the character being read, and the loop budget as of `budgetAt`. */
  private read = 0;
  private pos = 0;
  private budget = Infinity;
  private budgetAt = 0;

  constructor(private readonly options: EscapeFilterOptions) {}

  /** The screen's size: counts and positions are capped by it from now on. */
  resize(rows: number, cols: number): void {
    this.rows = Math.max(1, Math.min(MAX_LINES, Math.floor(rows) || 1));
    this.cols = Math.max(1, Math.min(MAX_COLUMNS, Math.floor(cols) || 1));
    this.budget = Math.min(this.budget, this.budgetCap());
  }

  private budgetCap(): number {
    return LOOP_BUDGET_SCREENS * this.rows * (this.rows + this.cols);
  }

  /** How many of `count` loops of `each` cells the budget allows now (0: none), spent. */
  private afford(count: number, each: number): number {
    this.budget = Math.min(this.budgetCap(), this.budget + (this.pos - this.budgetAt) * LOOP_BUDGET_PER_CHAR);
    this.budgetAt = this.pos;
    const n = Math.min(count, Math.floor(this.budget / each));
    this.budget -= n * each;
    return n;
  }

  /** Filters one chunk; a sequence cut at its end is held until the next chunk. */
  write(data: string): string {
    return this.writeSliced(data).join('');
  }

  /** As `write`, in pieces of at most about SLICE_WORK of xterm's work each (the last may be empty). */
  writeSliced(data: string): string[] {
    this.out = [];
    this.pieces = [];
    this.work = 0;
    let i = 0;
    const n = data.length;
    while (i < n) {
      if (this.state === GROUND && !this.dropLowSurrogate) {
        GROUND_SPECIAL.lastIndex = i;
        const m = GROUND_SPECIAL.exec(data);
        const end = m ? m.index : n;
        if (end > i) this.text(data, i, end);
        i = end;
        if (i >= n) break;
      }
      this.pos = this.read + i;
      this.step(data, i);
      i++;
    }
    this.read += n;
    this.pieces.push(this.out.join(''));
    const result = this.pieces;
    this.out = [];
    this.pieces = [];
    return result;
  }

  /** Plain text: a character is a cell, a line feed (LF, VT, FF) may scroll a region, a line's work. */
  private text(data: string, from: number, to: number): void {
    let at = from;
    while (at < to) {
      const room = Math.max(1, SLICE_WORK - this.work);
      let end = Math.min(to, at + room);
      let feeds = 0;
      for (let j = at; j < end; j++) {
        const c = data.charCodeAt(j);
        if (c >= 0x0a && c <= 0x0c && j + 1 - at + ++feeds * (this.rows + this.cols) >= room) {
          // Many line feeds: the piece ends after this one.
          end = j + 1;
          break;
        }
      }
      // Never between the halves of a surrogate pair.
      if (end < to && isHighSurrogate(data.charCodeAt(end - 1))) end++;
      this.out.push(data.slice(at, end));
      this.spend(end - at + feeds * (this.rows + this.cols));
      at = end;
    }
  }

  /** Counts work done by what was just emitted; past the slice's work, a new piece begins. */
  private spend(work: number): void {
    this.work += work;
    if (this.work >= SLICE_WORK) {
      this.pieces.push(this.out.join(''));
      this.out = [];
      this.work = 0;
    }
  }

  /** Forgets a sequence in progress (the terminal was reset). */
  reset(): void {
    this.state = GROUND;
    this.dropLowSurrogate = false;
  }

  private emit(s: string): void {
    this.out.push(s);
    this.spend(s.length + this.controlWork(s));
  }

  /** A control or ESC sequence that may scroll a region (a line's work) or fill the screen (DECALN). */
  private controlWork(s: string): number {
    if (s.length > 3) return 0;
    if (s === `${ESC}#8`) return this.rows * this.cols;
    const c = s.charCodeAt(s.length - 1);
    const line = s.length === 1 ? (c >= 0x0a && c <= 0x0c) || c === 0x84 || c === 0x85 || c === 0x8d : s.length === 2 && (s === `${ESC}D` || s === `${ESC}E` || s === `${ESC}M`);
    return line ? this.rows + this.cols : 0;
  }

  private clear(): void {
    this.params.reset();
    this.prefix = '';
    this.intermediates = '';
  }

  private collect(code: number): void {
    // More than two intermediates: no function has that many; the sequence is dropped at its end.
    if (this.intermediates.length < 3) this.intermediates += String.fromCharCode(code);
  }

  /** xterm drops a non-ASCII character where a sequence cannot hold one, and returns to the ground state. */
  private error(code: number): void {
    if (isHighSurrogate(code)) this.dropLowSurrogate = true;
    this.state = GROUND;
  }

  private step(data: string, i: number): void {
    const code = data.charCodeAt(i);
    if (this.dropLowSurrogate) {
      this.dropLowSurrogate = false;
      if (isLowSurrogate(code)) return;
    }
    const ch = data[i]!;
    const state = this.state;

    if (state === OSC) return this.stepOsc(code, ch);
    if (state === DCS_PASSTHROUGH) return this.stepDcsData(code, ch);
    if (code === 0x18 || code === 0x1a || code === 0x1b || (code >= 0x80 && code <= 0x9f)) return this.anywhere(code, ch);

    switch (state) {
      case GROUND:
        this.emit(ch);
        return;
      case ESCAPE:
      case ESCAPE_INTERMEDIATE:
        if (isExecutable(code)) return this.emit(ch);
        if (code === 0x7f) return;
        if (code >= 0xa0) return this.error(code);
        if (code >= 0x20 && code <= 0x2f) {
          this.collect(code);
          this.state = ESCAPE_INTERMEDIATE;
          return;
        }
        if (state === ESCAPE) {
          if (ch === '[') return this.enter(CSI_ENTRY);
          if (ch === ']') return this.startOsc();
          if (ch === 'P') return this.enter(DCS_ENTRY);
          if (ch === 'X' || ch === '^' || ch === '_') {
            this.state = SOS_PM_APC;
            return;
          }
        }
        // ESC dispatch: the sequence has no numbers.
        if (this.intermediates.length <= 2) this.emit(ESC + this.intermediates + ch);
        this.state = GROUND;
        return;
      case CSI_ENTRY:
      case CSI_PARAM:
      case CSI_INTERMEDIATE:
        if (isExecutable(code)) return this.emit(ch);
        if (code === 0x7f) return;
        if (code >= 0xa0) return this.error(code);
        if (code >= 0x40) return this.dispatchCsi(ch);
        if (code <= 0x2f) {
          this.collect(code);
          this.state = CSI_INTERMEDIATE;
          return;
        }
        if (state === CSI_INTERMEDIATE) {
          this.state = CSI_IGNORE;
          return;
        }
        if (code <= 0x3b) {
          this.params.put(code);
          this.state = CSI_PARAM;
          return;
        }
        // < = > ?: a prefix only as the first byte.
        if (state === CSI_ENTRY) {
          this.prefix = ch;
          this.state = CSI_PARAM;
        } else this.state = CSI_IGNORE;
        return;
      case CSI_IGNORE:
        if (isExecutable(code)) return this.emit(ch);
        if (code >= 0x40 && code <= 0x7e) this.state = GROUND;
        return;
      case SOS_PM_APC:
        if (code >= 0xa0) this.error(code);
        return;
      case DCS_ENTRY:
      case DCS_PARAM:
      case DCS_INTERMEDIATE:
        if (code < 0x20 || code === 0x7f) return;
        if (code >= 0xa0) return this.error(code);
        if (code >= 0x40) return this.hookDcs(ch);
        if (code <= 0x2f) {
          this.collect(code);
          this.state = DCS_INTERMEDIATE;
          return;
        }
        if (state === DCS_INTERMEDIATE) {
          this.state = DCS_IGNORE;
          return;
        }
        if (code <= 0x3b) {
          this.params.put(code);
          this.state = DCS_PARAM;
          return;
        }
        if (state === DCS_ENTRY) {
          this.prefix = ch;
          this.state = DCS_PARAM;
        } else this.state = DCS_IGNORE;
        return;
      case DCS_IGNORE:
        return;
    }
  }

  private enter(state: number): void {
    this.clear();
    this.state = state;
  }

  /** Transitions xterm takes from any state: CAN, SUB, ESC and the C1 controls. */
  private anywhere(code: number, ch: string): void {
    this.clear();
    switch (code) {
      case 0x1b:
        this.state = ESCAPE;
        return;
      case 0x9b:
        this.state = CSI_ENTRY;
        return;
      case 0x90:
        this.state = DCS_ENTRY;
        return;
      case 0x9d:
        this.startOsc();
        return;
      case 0x98:
      case 0x9e:
      case 0x9f:
        this.state = SOS_PM_APC;
        return;
      default:
        // CAN, SUB and the other C1 controls are executed (ST is ignored); either way the ground state.
        this.emit(ch);
        this.state = GROUND;
    }
  }

  private dispatchCsi(final: string): void {
    this.state = GROUND;
    if (this.intermediates.length > 2) return;
    const caps = csiCaps(this.prefix, this.intermediates, final, this.params);
    if (caps === null) return;
    if (!this.prefix && !this.intermediates && LOOPED.has(final)) {
      // Within the budget: the count shrinks to what it affords, or the sequence is dropped.
      const v = this.params.values;
      const count = Math.max(1, Math.min(v[0]!, caps === LINES ? this.rows : this.cols));
      const lines = final !== 'b';
      const n = this.afford(count, lines ? this.rows + this.cols : 1);
      if (n === 0) return;
      if (n < count) {
        v[0] = n;
        this.params.setDigits(0);
      }
    }
    const seq = `${ESC}[${this.prefix}${this.params.format(caps, this.rows, this.cols)}${this.intermediates}${final}`;
    this.out.push(seq);
    this.spend(seq.length + this.csiWork(final));
  }

  /** Cells xterm may touch for this CSI (its first parameter already capped): a loop per count, or the screen. */
  private csiWork(final: string): number {
    if (this.prefix) return final === 'J' || final === 'K' ? this.rows * this.cols : 0;
    const rows = this.rows;
    const cols = this.cols;
    const count = Math.max(1, Math.min(this.params.values[0]!, MAX_PARAM));
    if (this.intermediates !== '') return rows * cols;
    switch (final) {
      case 'L':
      case 'M':
      case 'S':
      case 'T':
        return Math.min(count, rows) * (rows + cols);
      case 'b':
      case 'I':
      case 'Z':
        return Math.min(count, cols);
      case '@':
      case 'P':
      case 'X':
      case 'K':
        return cols;
      case 'J':
      case 'r':
        return rows * cols;
      default:
        return 0;
    }
  }

  private hookDcs(final: string): void {
    this.state = DCS_PASSTHROUGH;
    this.dcsDrop = this.intermediates.length > 2;
    if (!this.dcsDrop) this.emit(`${ESC}P${this.prefix}${this.params.format(GENERIC, this.rows, this.cols)}${this.intermediates}${final}`);
  }

  private stepDcsData(code: number, ch: string): void {
    // ESC, ST, CAN and SUB end the data (ESC also begins a sequence: ST stands in for it here).
    if (code === 0x1b || code === 0x9c || code === 0x18 || code === 0x1a) {
      if (!this.dcsDrop) this.emit(code === 0x1b ? ST : ch);
      if (code === 0x1b) this.enter(ESCAPE);
      else this.state = GROUND;
      return;
    }
    if (code >= 0x80 && code <= 0x9f) {
      // Another C1 control leaves the data without ending it: it is cancelled.
      if (!this.dcsDrop) this.emit(CAN);
      return this.anywhere(code, ch);
    }
    if (!this.dcsDrop) this.emit(ch);
  }

  private startOsc(): void {
    this.clear();
    this.state = OSC;
    this.osc = 'id';
    this.oscId = -1;
  }

  /** Whether the OSC whose number was read goes on to xterm. */
  private oscKept(): boolean {
    if (this.oscId < 0 || this.oscId > MAX_PARAM) return false;
    return !(this.options.palette === 'drop' && PALETTE_OSC.has(this.oscId));
  }

  private stepOsc(code: number, ch: string): void {
    const end = code === 0x07 || code === 0x9c || code === 0x1b || code === 0x18 || code === 0x1a;
    if (end) {
      // An OSC without text (OSC 104 BEL) still acts.
      if (this.osc === 'id' && this.oscKept()) this.emit(`${ESC}]${this.oscId}`);
      if (this.osc === 'pass' || (this.osc === 'id' && this.oscKept())) this.emit(code === 0x1b ? ST : ch);
      if (code === 0x1b) this.enter(ESCAPE);
      else this.state = GROUND;
      return;
    }
    if (code >= 0x80 && code <= 0x9f) {
      if (this.osc === 'pass') this.emit(CAN);
      return this.anywhere(code, ch);
    }
    // Other C0 controls are ignored inside an OSC.
    if (code < 0x20) return;
    if (this.osc === 'pass') return this.emit(ch);
    if (this.osc === 'drop') return;
    if (code >= 0x30 && code <= 0x39) {
      this.oscId = Math.min((this.oscId < 0 ? 0 : this.oscId * 10) + code - 0x30, SATURATE);
      return;
    }
    if (code === 0x3b && this.oscKept()) {
      this.osc = 'pass';
      this.emit(`${ESC}]${this.oscId};`);
      return;
    }
    // A number xterm would not act on, a palette change, or not a number at all (xterm aborts it).
    this.osc = 'drop';
  }
}
