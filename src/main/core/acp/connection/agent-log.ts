import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Disposable } from '../../base/lifecycle';

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
/** One log line keeps at most this much of a message (a 50 MB line is logged by its head). */
export const LOG_LINE_MAX = 64 * 1024;

/**
 * A per-agent log file (stderr, sessionless ACP messages, warnings), bounded in size: past the limit the
 * file is rotated to `<path>.1` (one old file kept). Writes are batched per tick.
 */
export class AgentLog implements Disposable {
  private pending: string[] = [];
  private scheduled = false;
  private size: number;
  private stderrRest = '';

  constructor(
    readonly path: string,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.size = existsSync(path) ? statSync(path).size : 0;
  }

  /** One line, prefixed with time and tag. */
  write(tag: string, text: string): void {
    const body = text.length > LOG_LINE_MAX ? `${text.slice(0, LOG_LINE_MAX)}… (${text.length} chars)` : text;
    this.pending.push(`${new Date().toISOString()} ${tag} ${body.replace(/\n(?!$)/g, '\n    ')}\n`);
    this.schedule();
  }

  /** Raw stderr bytes, logged line by line. */
  stderr(chunk: string): void {
    const text = this.stderrRest + chunk;
    const lines = text.split('\n');
    this.stderrRest = lines.pop() ?? '';
    if (this.stderrRest.length > LOG_LINE_MAX) {
      lines.push(this.stderrRest);
      this.stderrRest = '';
    }
    for (const line of lines) this.write('stderr', line);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const data = this.pending.join('');
    this.pending = [];
    try {
      if (this.size + data.length > this.maxBytes && this.size > 0) {
        renameSync(this.path, `${this.path}.1`);
        this.size = 0;
      }
      appendFileSync(this.path, data, { mode: 0o600 });
      this.size += Buffer.byteLength(data);
    } catch (e) {
      console.error(`agent log ${this.path}:`, e);
    }
  }

  /** The last `maxBytes` of the log (rotated part included). */
  tail(maxBytes: number): { text: string; truncated: boolean } {
    this.flush();
    const chunks: Buffer[] = [];
    let remaining = maxBytes;
    let truncated = false;
    for (const file of [this.path, `${this.path}.1`]) {
      if (remaining <= 0) {
        truncated ||= existsSync(file);
        break;
      }
      if (!existsSync(file)) continue;
      const size = statSync(file).size;
      const take = Math.min(size, remaining);
      if (take < size) truncated = true;
      const buf = Buffer.alloc(take);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, buf, 0, take, size - take);
      } finally {
        closeSync(fd);
      }
      chunks.unshift(buf);
      remaining -= take;
    }
    let text = Buffer.concat(chunks).toString('utf8');
    // Do not start in the middle of a character or line.
    if (truncated) text = text.slice(text.indexOf('\n') + 1);
    return { text, truncated };
  }

  dispose(): void {
    if (this.stderrRest) this.write('stderr', this.stderrRest);
    this.stderrRest = '';
    this.flush();
  }
}
