import { describe, expect, it } from 'vitest';
import type { ClientMessage } from '../../../src/main/core/host/ssh/protocol';
import { RemoteProcess, type StreamLink } from '../../../src/main/core/host/ssh/remote-process';

/**
 * What a process on an SSH host is sent again after its connection dropped: the user's input, and not what
 * Switchboard wrote on its own "now or never" (the hang watchdog's cancel).
 */
function link(): StreamLink & { sent: ClientMessage[]; up: boolean } {
  const l = {
    sent: [] as ClientMessage[],
    up: true,
    send: (msg: ClientMessage) => void (l.up && l.sent.push(msg)),
    isUp: () => l.up,
    release: () => undefined,
  };
  return l;
}

const inputs = (sent: ClientMessage[]) => sent.flatMap((m) => (m.t === 'in' && m.d ? [m.d.toString('utf8')] : []));

describe('input to a process on a host, across a dropped connection', () => {
  it('resends the input the host did not apply, but drops what was written now-or-never', () => {
    const l = link();
    const proc = new RemoteProcess('p-1', { kind: 'spawn', argv: ['agent'], env: {} }, l);
    proc.onEvent(1, { e: 'started', pid: 42 });
    proc.stdin.write('prompt\n');
    proc.writeNowOrNever('cancel\n');
    proc.stdin.write('more\n');
    expect(inputs(l.sent)).toEqual(['prompt\n', 'cancel\n', 'more\n']);
    // The connection dropped before the host applied any of it; it comes back.
    l.sent.length = 0;
    l.up = false;
    proc.writeNowOrNever('cancel again\n');
    proc.stdin.write('typed meanwhile\n');
    l.up = true;
    proc.onWelcome({ in: 0, alive: true });
    expect(inputs(l.sent)).toEqual(['prompt\n', 'more\n', 'typed meanwhile\n']);
    // The numbers still go up: the host applies each once, in order.
    const numbers = l.sent.flatMap((m) => (m.t === 'in' ? [m.s] : []));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    proc.dispose();
  });
});
