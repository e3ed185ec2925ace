// eslint-disable-next-line no-restricted-imports -- the one place that makes an xterm
import { Terminal, type ITerminalInitOnlyOptions, type ITerminalOptions } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { EscapeFilter, MAX_COLUMNS, MAX_LINES, PALETTE_OSC, type EscapeFilterOptions } from '@shared/terminal/escape-filter';
import { requestOpenLink } from './link-confirm';

/** Functions xterm runs once per unit of their count (a huge count is a long loop). */
const LOOPS: Array<{ final: string; max: number }> = [
  { final: 'b', max: MAX_COLUMNS },
  { final: 'I', max: MAX_COLUMNS },
  { final: 'Z', max: MAX_COLUMNS },
  { final: 'L', max: MAX_LINES },
  { final: 'M', max: MAX_LINES },
  { final: 'S', max: MAX_LINES },
  { final: 'T', max: MAX_LINES },
];

const largest = (params: (number | number[])[]): number => Math.max(0, ...params.flat());

/**
 * The app's only kind of xterm: everything written to it (agent output, a tool call's terminal, the
 * user's shell, a transcript) goes through an EscapeFilter first, so no count reaching xterm's parser
 * exceeds the screen, and the output is written in pieces of bounded work (xterm lets the page draw
 * between writes); links (OSC 8) open through the app's confirmation, http(s) only.
 */
export class SafeTerminal extends Terminal {
  private readonly filter: EscapeFilter;
  private readonly decoder = new TextDecoder();

  constructor(options: ITerminalOptions & ITerminalInitOnlyOptions, policy: EscapeFilterOptions) {
    super({
      ...options,
      // Window ops (resize, move, report) stay off.
      windowOptions: {},
      linkHandler: { activate: (_event, text) => requestOpenLink(text), allowNonHttpProtocols: false },
    });
    this.filter = new EscapeFilter(policy);
    this.filter.resize(this.rows, this.cols);
    this.onResize(({ rows, cols }) => this.filter.resize(rows, cols));
    // A second line behind the filter: a loop count over the largest screen is refused (the filter caps by
    // the screen's size when it reads the output; the screen may have been resized since).
    for (const { final, max } of LOOPS) this.parser.registerCsiHandler({ final }, (params) => largest(params) > max);
    if (policy.palette === 'drop') for (const id of PALETTE_OSC) this.parser.registerOscHandler(id, () => true);
  }

  override write(data: string | Uint8Array, callback?: () => void): void {
    const pieces = this.filter.writeSliced(typeof data === 'string' ? data : this.decoder.decode(data, { stream: true }));
    const last = pieces.length - 1;
    for (let i = 0; i < last; i++) if (pieces[i]) super.write(pieces[i]!);
    super.write(pieces[last] ?? '', callback);
  }

  override writeln(data: string | Uint8Array, callback?: () => void): void {
    this.write(data);
    this.write('\r\n', callback);
  }

  override reset(): void {
    this.filter.reset();
    super.reset();
  }
}
