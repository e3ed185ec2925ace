import type { Socket } from 'node:net';
import { MAX_CHANNEL_LINE } from '../../../shared/delegation';

/**
 * Hands each line a delegation server sends on `socket` to `onLine`, in order; the connection is dropped when
 * `onLine` says false, or a line (or what is buffered of one) passes MAX_CHANNEL_LINE.
 */
export function onSocketLines(socket: Socket, onLine: (line: string) => boolean): void {
  socket.setEncoding('utf8');
  let buffer = '';
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.length > MAX_CHANNEL_LINE || !onLine(line)) return void socket.destroy();
    }
    if (buffer.length > MAX_CHANNEL_LINE) socket.destroy();
  });
}
