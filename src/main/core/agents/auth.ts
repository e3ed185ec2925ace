import type { AuthMethodInfo } from '../../../shared/contract/agents';

export type ParsedAuthMethod =
  | { type: 'agent'; id: string; name: string; description: string | null }
  | {
      type: 'env_var';
      id: string;
      name: string;
      description: string | null;
      link: string | null;
      vars: Array<{ name: string; label: string | null; secret: boolean; optional: boolean }>;
    }
  | { type: 'terminal'; id: string; name: string; description: string | null; args: string[]; env: Record<string, string> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
};

/**
 * The `authMethods` of an initialize response, in the three kinds a client acts on. Besides the stable
 * `type: "terminal"`, the legacy form (`_meta: {type: "terminal", args}`, Qwen Code) and the env-var
 * kind of the auth-methods RFD are understood; anything else is the default `agent` kind.
 */
export function parseAuthMethods(raw: unknown): ParsedAuthMethod[] {
  if (!Array.isArray(raw)) return [];
  const out: ParsedAuthMethod[] = [];
  for (const m of raw) {
    if (!isRecord(m) || typeof m.id !== 'string' || typeof m.name !== 'string') continue;
    const base = { id: m.id, name: m.name, description: typeof m.description === 'string' ? m.description : null };
    const meta = isRecord(m._meta) ? m._meta : {};
    if (m.type === 'terminal' || (m.type === undefined && meta.type === 'terminal')) {
      const src = m.type === 'terminal' ? m : meta;
      out.push({ type: 'terminal', ...base, args: strings(src.args), env: stringMap(src.env) });
    } else if (m.type === 'env_var' && Array.isArray(m.vars)) {
      const vars = m.vars
        .filter((v): v is Record<string, unknown> => isRecord(v) && typeof v.name === 'string' && /^[^=\0]+$/.test(v.name))
        .map((v) => ({
          name: v.name as string,
          label: typeof v.label === 'string' ? v.label : null,
          secret: v.secret !== false,
          optional: v.optional === true,
        }));
      out.push({ type: 'env_var', ...base, link: typeof m.link === 'string' ? m.link : null, vars });
    } else {
      out.push({ type: 'agent', ...base });
    }
  }
  return out;
}

/** What the renderer sees: never the values (terminal env may carry tokens). */
export function authMethodInfo(m: ParsedAuthMethod, storedSecrets: ReadonlySet<string>): AuthMethodInfo {
  switch (m.type) {
    case 'agent':
      return m;
    case 'terminal':
      return { type: 'terminal', id: m.id, name: m.name, description: m.description, args: m.args };
    case 'env_var':
      return { ...m, vars: m.vars.map((v) => ({ ...v, stored: storedSecrets.has(v.name) })) };
  }
}

/** JSON-RPC `auth_required`. */
export const AUTH_REQUIRED = -32000;
