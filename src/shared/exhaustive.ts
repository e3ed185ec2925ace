/**
 * The end of a switch that covers every member of a union: a member added later without its case no longer
 * compiles here, so the compiler lists every place a new kind touches.
 */
export function exhaustive(value: never, what = 'kind'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
