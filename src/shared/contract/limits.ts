/**
 * Size limits every request meets before any schema or handler sees it. Recursive code (zod, JSON.stringify,
 * SQLite JSON) must never meet input deep enough to exhaust the stack, whatever the transport.
 */

/** How deeply a request's params may nest (the params object itself is level 1). */
export const MAX_PARAMS_DEPTH = 64;

/** The largest settings value, as JSON. Settings are small preferences; 256 KiB leaves room for layouts and lists. */
export const MAX_SETTING_VALUE_BYTES = 256 * 1024;

/** How many arrays and objects a request's params may hold in all (far beyond any real request). */
export const MAX_PARAMS_CONTAINERS = 1_000_000;

/**
 * What is wrong with the shape of `value`, if anything: nesting deeper than `maxDepth` (a cycle counts
 * as too deep), or more than `maxContainers` arrays/objects (shared references, which structured clone
 * over Electron IPC can carry, count each time they are met, so no graph costs more than the cap).
 * Iterative, and allocation-light: safe for any input.
 */
export function paramsShapeProblem(value: unknown, maxDepth: number, maxContainers: number): 'too_deep' | 'too_many' | null {
  if (typeof value !== 'object' || value === null) return null;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  let count = 0;
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return 'too_deep';
    if (++count > maxContainers) return 'too_many';
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const child: unknown = (node as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return null;
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
