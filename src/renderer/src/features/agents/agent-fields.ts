/** The agent form's text fields: environment lines and argument lines. */
const ENV_NAME = /^[^=\0\s]+$/;

/** `KEY=value` lines (blank lines and # comments skipped). */
export function parseEnv(text: string): { env: Record<string, string>; errors: string[] } {
  const env: Record<string, string> = {};
  const errors: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!line.trim() || line.trim().startsWith('#')) return;
    const eq = line.indexOf('=');
    const name = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!ENV_NAME.test(name)) errors.push(`line ${i + 1}: expected NAME=value`);
    else env[name] = line.slice(eq + 1);
  });
  return { env, errors };
}

export const formatEnv = (env: Record<string, string>): string =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

/** One argument per line, so spaces and quotes need no escaping. */
export const parseArgs = (text: string): string[] => text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
