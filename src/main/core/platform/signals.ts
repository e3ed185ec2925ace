import { constants } from 'node:os';

/** A signal's name (SIGTERM) from its number, as the system numbers them; an unknown one as its number. */
export const signalName = (signal: number | null): string | null => {
  if (signal === null) return null;
  for (const [name, n] of Object.entries(constants.signals)) if (n === signal) return name;
  return String(signal);
};
