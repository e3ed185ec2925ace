/**
 * Size limits every request meets before any schema or handler sees it. Recursive code (zod, JSON.stringify,
 * SQLite JSON) must never meet input deep enough to exhaust the stack, whatever the transport.
 */

/** How deeply a request's params may nest (the params object itself is level 1). */
export const MAX_PARAMS_DEPTH = 64;

/** The largest settings value, as JSON. Settings are small preferences; 256 KiB leaves room for layouts and lists. */
export const MAX_SETTING_VALUE_BYTES = 256 * 1024;

/** Whether `value` nests arrays/objects more than `max` levels deep. Iterative: safe for any depth. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    if (depth > max) return true;
    // Structured clone (Electron IPC) can carry cycles; JSON cannot.
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether `value` as JSON fits in `maxBytes` of UTF-8: 'fits', 'too_large', or 'not_json' (a cycle, a
 * BigInt, nesting too deep for JSON.stringify).
 */
export function jsonFits(value: unknown, maxBytes: number): 'fits' | 'too_large' | 'not_json' {
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    return 'not_json';
  }
  if (text === undefined) return 'not_json';
  // A UTF-16 code unit is at least one UTF-8 byte: a string this long is too large without encoding it.
  if (text.length > maxBytes) return 'too_large';
  return new TextEncoder().encode(text).length > maxBytes ? 'too_large' : 'fits';
}
