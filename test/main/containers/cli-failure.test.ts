import { describe, expect, it } from 'vitest';
import { failedCommandOutput, upFailure } from '../../../src/main/core/containers/cli-failure';

const log = (lines: string[]) => lines.map((l) => `[2026-11-29T16:50:44.700Z] ${l}`).join('\n');

describe("the dev container CLI's failure as the user reads it", () => {
  it("a failed command's message carries the last lines it printed, without escapes or control characters, bounded", () => {
    const printed = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const stderr = `${log(['@devcontainers/cli 0.89.0.', 'Start: Run: podman build .', ...printed, '\x1b[31mError:\x1b[0m step failed\x07\x1b]0;title\x07', 'Exit code 3'])}\nError: Command failed: podman build .\n    at IW (cli.js:1:1)`;
    const message = upFailure('Command failed: podman build .', stderr);
    expect(message.split('\n')).toEqual(['Command failed: podman build .', ...printed.slice(-11), 'Error: step failed']);
  });

  it('a message that is not a failed command, or a log without a command, is kept as it is', () => {
    expect(upFailure('An image was not found', log(['Start: Run: podman pull x', 'nope', 'Exit code 1']))).toBe('An image was not found');
    expect(failedCommandOutput(log(['@devcontainers/cli 0.89.0.', 'no command ran']))).toEqual([]);
    expect(upFailure(`Command failed: x${'y'.repeat(1000)}`, '')).toHaveLength(300);
  });
});
