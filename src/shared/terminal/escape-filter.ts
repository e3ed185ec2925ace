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
 */

/** The largest count or position on the vertical axis (lines): more than any screen has rows. */
export const MAX_LINES = 1000;
/** The largest count or position on the horizontal axis (columns), a repeat count included. */
export const MAX_COLUMNS = 1000;
/** The largest value of any other parameter (mode numbers go up to a few thousand). */
export const MAX_PARAM = 65535;
/** The largest window asked for by a window op (CSI 4 ; h ; w t, in pixels). */
export const MAX_WINDOW_PIXELS = 16384;

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

function capOf(caps: Caps, index: number, value: number): number {
  const max = caps === LINES || (caps === ROW_COLUMN && index === 0) ? MAX_LINES : caps === COLUMNS || (caps === ROW_COLUMN && index === 1) ? MAX_COLUMNS : MAX_PARAM;
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

  /** The parameters as text, capped; sub-parameters by the generic cap. */
  format(caps: Caps): string {
    let out = '';
    let s = 0;
    for (let i = 0; i < this.length; i++) {
      if (i) out += ';';
      if (this.digits[i]) out += capOf(caps, i, this.values[i]!);
      for (; s < this.subCount && this.subOwner[s] === i; s++) {
        const v = this.subs[s]!;
        out += v < 0 ? ':' : `:${v > MAX_PARAM ? MAX_PARAM : v}`;
      }
    }
    return out;
  }
}

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

  constructor(private readonly options: EscapeFilterOptions) {}

  /** Filters one chunk; a sequence cut at its end is held until the next chunk. */
  write(data: string): string {
    this.out = [];
    let i = 0;
    const n = data.length;
    while (i < n) {
      if (this.state === GROUND && !this.dropLowSurrogate) {
        GROUND_SPECIAL.lastIndex = i;
        const m = GROUND_SPECIAL.exec(data);
        const end = m ? m.index : n;
        if (end > i) this.out.push(data.slice(i, end));
        i = end;
        if (i >= n) break;
      }
      this.step(data, i);
      i++;
    }
    const result = this.out.join('');
    this.out = [];
    return result;
  }

  /** Forgets a sequence in progress (the terminal was reset). */
  reset(): void {
    this.state = GROUND;
    this.dropLowSurrogate = false;
  }

  private emit(s: string): void {
    this.out.push(s);
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
    this.emit(`${ESC}[${this.prefix}${this.params.format(caps)}${this.intermediates}${final}`);
  }

  private hookDcs(final: string): void {
    this.state = DCS_PASSTHROUGH;
    this.dcsDrop = this.intermediates.length > 2;
    if (!this.dcsDrop) this.emit(`${ESC}P${this.prefix}${this.params.format(GENERIC)}${this.intermediates}${final}`);
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
