/**
 * What the dev container CLI's failure says to the user. The CLI's own message for a command that failed is
 * only "Command failed: <the command>"; what the command printed (a build step's error, a lifecycle command's
 * output) is in the CLI's log before it. That output is the repository's and the engine's: control characters
 * and terminal escapes are taken out, and it is bounded.
 */

const MAX_LINES = 12;
const MAX_LINE = 300;
const STAMP = /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] /;
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g;

/** The last lines the failed command printed, as the CLI logged them (empty when it logged none). */
export function failedCommandOutput(stderr: string): string[] {
  const lines = stderr.split(/\r?\n/);
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.replace(STAMP, '');
    if (text.startsWith('Start: Run: ')) start = i;
    else if (start >= 0 && /^Exit code \d+$/.test(text)) end = i;
  }
  if (start < 0) return [];
  return lines
    .slice(start + 1, end)
    .map((l) => l.replace(STAMP, '').replace(ESCAPES, '').trimEnd().slice(0, MAX_LINE))
    .filter((l) => l.trim() !== '' && !l.startsWith('Start: ') && !l.startsWith('Stop ('))
    .slice(-MAX_LINES);
}

/** The error of a failed `up`: the CLI's message, and for a failed command what it printed last. */
export function upFailure(message: string, stderr: string): string {
  const said = message.replace(ESCAPES, '').slice(0, MAX_LINE);
  if (!said.startsWith('Command failed')) return said;
  const output = failedCommandOutput(stderr);
  return output.length > 0 ? `${said}\n${output.join('\n')}` : said;
}
