/**
 * The header Codex puts before a command's output when it hands the output to the model (codex-rs/core,
 * tools/mod.rs `format_exec_output_for_model_freeform` for its shell tools: "Exit code: 1\nWall time: 0.2
 * seconds\n[Total output lines: N\n]Output:\n…"; tools/handlers/unified_exec.rs `format_response` for
 * exec_command and write_stdin: "[Chunk ID: …\n]Wall time: 0.0123 seconds\n[Process exited with code 1\n]
 * [Process running with session ID 3\n][Original token count: N\n]Output:\n…"). It is the model's view, not
 * the command's output: the header is taken off, and its exit code tells whether the command failed.
 */

const HEADER_LINE: Array<[RegExp, 'exit' | 'other']> = [
  [/^Exit code: (-?\d+)$/, 'exit'],
  [/^Process exited with code (-?\d+)$/, 'exit'],
  [/^Wall time: [\d.]+ seconds$/, 'other'],
  [/^Total output lines: \d+$/, 'other'],
  [/^Chunk ID: \S+$/, 'other'],
  [/^Process running with session ID \S+$/, 'other'],
  [/^Original token count: \d+$/, 'other'],
];

/** Most header lines looked at (Codex writes at most five). */
const MAX_HEADER_LINES = 8;

/**
 * `text` without Codex's header, and the exit code the header names (null: none, or no header). Text that
 * does not start with a whole header (its lines known, a wall time among them, then "Output:") is left as is.
 */
export function withoutExecHeader(text: string): { output: string; exitCode: number | null } {
  if (!text.startsWith('Exit code: ') && !text.startsWith('Wall time: ') && !text.startsWith('Chunk ID: ')) return { output: text, exitCode: null };
  let exitCode: number | null = null;
  let wallTime = false;
  let at = 0;
  for (let n = 0; n < MAX_HEADER_LINES; n++) {
    const end = text.indexOf('\n', at);
    const line = end < 0 ? text.slice(at) : text.slice(at, end);
    if (line === 'Output:') return wallTime ? { output: end < 0 ? '' : text.slice(end + 1), exitCode } : { output: text, exitCode: null };
    const known = HEADER_LINE.find(([re]) => re.test(line));
    if (!known || end < 0) break;
    if (known[1] === 'exit') exitCode = Number(known[0].exec(line)![1]);
    if (line.startsWith('Wall time: ')) wallTime = true;
    at = end + 1;
  }
  return { output: text, exitCode: null };
}
