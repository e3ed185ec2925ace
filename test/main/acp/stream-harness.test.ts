import { describe, expect, it } from 'vitest';
import { benchStream } from '../../../bench/support/client-path';

describe('stream benchmark harness', () => {
  it('runs the flood through the client path and the baseline and counts every update', async () => {
    const n = Number(process.env.BENCH_CHUNKS ?? 2000);
    const r = await benchStream({ chunks: n, chunkBytes: 100 });
    if (process.env.BENCH_CHUNKS) console.log(JSON.stringify(r));
    expect(r.updates).toBe(n);
    expect(r.baseline.updates).toBe(n);
    expect(r.seconds).toBeGreaterThan(0);
  }, 120_000);
});
