import { FsRefusal } from '../../src/main/core/host/files';

/** The FsRefusal `p` rejects with; fails the test if it succeeds or fails otherwise. */
export async function refusal(p: Promise<unknown>): Promise<FsRefusal> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FsRefusal) return e;
    throw new Error(`expected a refusal, got ${String(e)}`);
  }
  throw new Error('expected a refusal, but it succeeded');
}
