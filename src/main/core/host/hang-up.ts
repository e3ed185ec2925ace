/** A pseudo-terminal's process as hanging up needs it. */
interface HangUpTarget {
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<unknown>;
}

/**
 * Hangs up, as a closed terminal window does (an interactive shell ignores SIGTERM), SIGKILL after 2 s, and
 * resolves once it ended or 3 s passed.
 */
export async function hangUp(pty: HangUpTarget): Promise<void> {
  pty.kill('SIGHUP');
  const timer = setTimeout(() => pty.kill('SIGKILL'), 2000);
  await Promise.race([pty.exited, new Promise((r) => setTimeout(r, 3000))]);
  clearTimeout(timer);
}
