/**
 * The channel to an SSH host's helper, against a helper that sends answers for requests never made (forged or
 * stale ids; test/fixtures/hostile-helper in 'stray' mode, a real process on stdio): each request gets its own
 * answer only; the strays are dropped, counted, and said on the console a bounded number of times.
 */
import { resolve } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { Channel } from '../../../src/main/core/host/ssh/channel';

const helper = resolve(__dirname, '../../fixtures/hostile-helper/helper.cjs');
let channel: Channel | null = null;
afterEach(() => {
  channel?.kill();
  vi.restoreAllMocks();
});

it('answers each request with its own answer; answers for requests this connection did not send are dropped, counted, said a few times', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  channel = new Channel(new Map(), new Map(), () => 'the connection was lost');
  await channel.open(process.execPath, [helper, 'stray'], 10_000, true);
  const notes: unknown[] = [];
  expect(await channel.request('first', {}, (n) => notes.push(n))).toEqual({ answer: 'first' });
  expect(await channel.request('second', {}, (n) => notes.push(n))).toEqual({ answer: 'second' });
  expect(await channel.request('third', {})).toEqual({ answer: 'third' });
  expect(notes).toEqual([]);
  // Per request: five forged answers (the ids next to its own, its id as a string, as an object, none) and a forged note.
  expect(channel.strayAnswers).toBe(3 * 6);
  expect(warn.mock.calls.length).toBe(3);
  expect(String(warn.mock.calls[0]![0])).toMatch(/dropped an answer for request \d+, which this connection is not waiting for/);
});
