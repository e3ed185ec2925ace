import { describe, expect, it } from 'vitest';
import { batchEvents } from '../../../src/main/core/base/event-batches';
import { EventBus } from '../../../src/main/core/base/event-bus';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/** The events of one event-loop turn go out together (both transports: WebSocket frames, Electron IPC). */
describe('event batches', () => {
  it('sends the events of one turn in one batch, in order, and nothing when nobody listens', async () => {
    const bus = new EventBus();
    const sent: string[][] = [];
    let listening = true;
    const b = batchEvents(bus, (name, payload) => `${name}:${JSON.stringify(payload)}`, (batch) => sent.push(batch), () => listening);
    bus.emit('app.notice', { level: 'info', message: 'one' });
    bus.emit('app.notice', { level: 'info', message: 'two' });
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([['app.notice:{"level":"info","message":"one"}', 'app.notice:{"level":"info","message":"two"}']]);
    listening = false;
    bus.emit('app.notice', { level: 'info', message: 'unheard' });
    await nextTurn();
    expect(sent).toHaveLength(1);
    b.dispose();
  });

  it('flush sends what is queued at once (a result goes after the events it caused); dispose drops the rest', async () => {
    const bus = new EventBus();
    const sent: unknown[][] = [];
    const b = batchEvents(bus, (name) => name, (batch) => sent.push(batch));
    bus.emit('app.notice', { level: 'info', message: 'x' });
    b.flush();
    expect(sent).toEqual([['app.notice']]);
    await nextTurn();
    expect(sent).toHaveLength(1);
    bus.emit('app.notice', { level: 'info', message: 'y' });
    b.dispose();
    await nextTurn();
    bus.emit('app.notice', { level: 'info', message: 'z' });
    await nextTurn();
    expect(sent).toHaveLength(1);
  });
});
