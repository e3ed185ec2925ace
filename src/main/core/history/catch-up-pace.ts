/**
 * How much the index's catch-up (a store indexed at start, an import's index pass) does per turn of the event loop.
 * A fixed number of messages per transaction held the loop for as long as they took: about 50 ms on a free core,
 * but 250–700 ms on a loaded one, where the app's window waited on every one of them. The pace sizes each
 * transaction from how long the last ones took, so that one holds the loop about TARGET_MS whatever the machine
 * does (down to MIN_MESSAGES); and it has the store copy its log into the database file (a WAL checkpoint) every
 * CHECKPOINT_EVERY messages indexed, a little at a time, where the store's own timer would copy three seconds of
 * writes at once (about 150 ms on a free core).
 */

/** Wall-clock ms one catch-up transaction aims at (a frame or two: the loop answers within 100 ms). */
export const TARGET_MS = 40;
/**
 * Fewer per transaction cost more than they save: each commit writes its own full-text segment (merged again later)
 * and the pages every transaction touches. At 50, on a loaded machine, the pass took 13 % more CPU than at 1000.
 */
export const MIN_MESSAGES = 400;
const MAX_MESSAGES = 8000;
export const FIRST_MESSAGES = 1000;
/** Messages indexed between two checkpoints of the store's log (a few MB of writes; by time, a loaded machine made hundreds). */
export const CHECKPOINT_EVERY = 4000;

export class CatchUpPace {
  /** Messages the next transaction indexes. */
  chunk = FIRST_MESSAGES;
  private sinceCheckpoint = 0;

  /**
   * The last transaction indexed `chunk` messages in `ms`: the next one is sized to take TARGET_MS (growing at most
   * twofold a step, as the first transactions of a pass, which fold sessions anew, are slower than the next).
   * True when a checkpoint is due.
   */
  took(ms: number): boolean {
    this.sinceCheckpoint += this.chunk;
    const scaled = ms > 0 ? (this.chunk * TARGET_MS) / ms : this.chunk * 2;
    this.chunk = Math.round(Math.min(MAX_MESSAGES, this.chunk * 2, Math.max(MIN_MESSAGES, scaled)));
    if (this.sinceCheckpoint < CHECKPOINT_EVERY) return false;
    this.sinceCheckpoint = 0;
    return true;
  }
}
