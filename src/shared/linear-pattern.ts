import { RE2JS } from 're2js';

/**
 * A regular expression someone else wrote (an agent's elicitation field, a registry's schema), run in
 * RE2JS: an automaton, so a match costs at most the program's size times the input's length, whatever
 * the pattern. It never reaches the JavaScript RegExp engine, which backtracks: `^(a{0,30}){8}$` there
 * takes minutes on a short input. RE2 has no backreferences or lookaround; a pattern using them is refused.
 */

export const LINEAR_PATTERN_LIMITS = {
  source: 500,
  /** Instructions of the compiled program: the per-character cost of a match. */
  program: 2_000,
} as const;

export interface LinearPattern {
  readonly source: string;
  /** Whether the pattern matches somewhere in `input` (JSON Schema's `pattern`: unanchored). */
  test(input: string | number[]): boolean;
}

export type CompiledPattern = { ok: true; pattern: LinearPattern } | { ok: false; reason: string };

const cache = new Map<string, CompiledPattern>();

function compileUncached(source: string): CompiledPattern {
  if (source.length > LINEAR_PATTERN_LIMITS.source) return { ok: false, reason: `the pattern is longer than ${LINEAR_PATTERN_LIMITS.source} characters` };
  let re: RE2JS;
  try {
    // The JavaScript spelling (\u00e9, named groups, an escaped /) read as RE2's.
    re = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '').slice(0, 120) : String(e);
    // Only parsed, never run: whether the pattern is valid at all, to say which of the two is wrong.
    let valid = true;
    try {
      new RegExp(source, 'u');
    } catch {
      valid = false;
    }
    return valid
      ? { ok: false, reason: `the pattern uses what a linear-time engine cannot run (backreferences, lookaround, repeats nested past 1000): ${detail}` }
      : { ok: false, reason: `the pattern is not a valid regular expression (${detail})` };
  }
  if (re.programSize() > LINEAR_PATTERN_LIMITS.program) {
    return { ok: false, reason: `the pattern is too large (${re.programSize()} instructions compiled, at most ${LINEAR_PATTERN_LIMITS.program})` };
  }
  return { ok: true, pattern: { source, test: (input) => re.test(input) } };
}

/** `source` compiled for a linear-time match, or why it cannot be (a sentence for the user or the agent). */
export function compileLinearPattern(source: string): CompiledPattern {
  let hit = cache.get(source);
  if (!hit) {
    hit = compileUncached(source);
    if (cache.size >= 256) cache.delete(cache.keys().next().value as string);
    cache.set(source, hit);
  }
  return hit;
}
