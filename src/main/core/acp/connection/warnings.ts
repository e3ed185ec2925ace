import type { z } from 'zod';
import type { warningKindSchema } from '../../../../shared/contract/sessions';

export type WarningKind = z.infer<typeof warningKindSchema>;

/**
 * Keeps a misbehaving agent (one printing logs to stdout, say) from flooding the UI: per key, at most
 * `burst` warnings per window reach the renderer, then one "suppressed" notice. Everything is still
 * written to the agent log.
 */
export class WarningLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly burst = 10,
    private readonly windowMs = 60_000,
  ) {}

  /** 'emit', 'suppress' (first one over the limit: tell the user once), or 'drop'. */
  check(key: string, now = Date.now()): 'emit' | 'suppress' | 'drop' {
    let w = this.windows.get(key);
    if (!w || now - w.start > this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count <= this.burst) return 'emit';
    return w.count === this.burst + 1 ? 'suppress' : 'drop';
  }
}
