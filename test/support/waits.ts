/**
 * How long a poll in an end-to-end test waits, by what it waits for, on a loaded 2-core machine (several
 * times what it takes on an idle one). A poll without a timeout would get vitest's 1 s.
 */
export const WAIT = {
  /** The page redrawing after the user's input (a click, a key, a field): no process and no server round trip. */
  page: 10_000,
  /** A round trip through the app server: a contract request, the store, another page told of a change, a file written. */
  server: 20_000,
  /** An agent process acting: a prompt answered, a request of the agent's, an agent started, an install. */
  agent: 30_000,
} as const;
