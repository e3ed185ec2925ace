import { expect, it } from 'vitest';
import { decode, encode, frame, FrameReader } from '../../../src/main/core/host/ssh/protocol';

it('carries messages and raw stream bytes through frames split anywhere', () => {
  const data = Buffer.from([0, 1, 2, 255, 10, 13, 0x7b]);
  const sent = [
    { t: 'ev', p: 'a-1', s: 1, e: 'out', fd: 1, d: data },
    { t: 'res', id: 3, ok: true, v: encode({ file: Buffer.from('é\n') }) },
    { t: 'ev', p: 'a-1', s: 2, e: 'exit', code: 0, signal: null },
  ];
  const bytes = Buffer.concat(sent.map(frame));
  for (const step of [1, 3, 7, bytes.length]) {
    const got: Array<Record<string, unknown>> = [];
    const reader = new FrameReader((m) => got.push(m));
    for (let i = 0; i < bytes.length; i += step) reader.push(bytes.subarray(i, i + step));
    expect(got).toEqual(sent);
    expect((decode(got[1]!.v) as { file: Buffer }).file.toString()).toBe('é\n');
  }
});

it('refuses a stream that is not frames instead of waiting for gigabytes', () => {
  const reader = new FrameReader(() => undefined);
  expect(() => reader.push(Buffer.from('Welcome to the host!\n'))).toThrow(/out of step/);
});
