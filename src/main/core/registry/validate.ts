import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import { compileLinearPattern } from '../../../shared/linear-pattern';
import type { DistKind } from '../../../shared/contract/registry';
import agentSchema from './schemas/agent.schema.json';
import registrySchema from './schemas/registry.schema.json';

/** A registry entry that passed the registry's own JSON schema (agent.schema.json, draft-07). */
export interface PackageDistribution {
  package: string;
  args?: string[];
  env?: Record<string, string>;
}
export interface BinaryTarget {
  archive: string;
  cmd: string;
  args?: string[];
  env?: Record<string, string>;
}
export interface AgentManifest {
  id: string;
  name: string;
  version: string;
  description: string;
  repository?: string;
  authors?: string[];
  license?: string;
  icon?: string;
  distribution: {
    binary?: Partial<Record<PlatformKey, BinaryTarget>>;
    npx?: PackageDistribution;
    uvx?: PackageDistribution;
  };
}

export const platformKeys = [
  'darwin-aarch64',
  'darwin-x86_64',
  'linux-aarch64',
  'linux-x86_64',
  'windows-aarch64',
  'windows-x86_64',
] as const;
export type PlatformKey = (typeof platformKeys)[number];

export interface InvalidEntry {
  index: number;
  id: string | null;
  name: string | null;
  reasons: string[];
}

export interface ParsedRegistry {
  version: string | null;
  agents: AgentManifest[];
  invalid: InvalidEntry[];
  warnings: string[];
}

export type ParseOutcome = { ok: true; registry: ParsedRegistry } | { ok: false; error: string };

/** The schema's patterns run in the linear-time engine, like every pattern Switchboard did not write. */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = compileLinearPattern(pattern);
    if (!compiled.ok) throw new Error(`schema pattern ${pattern}: ${compiled.reason}`);
    // ajv keys its cache of patterns by toString().
    return { test: (s: string) => compiled.pattern.test(s), toString: () => pattern };
  },
  { code: 'compileLinearPattern' },
);

/** An absolute URI, checked by the URL parser within a bounded length (a format regex could backtrack). */
const isUri = (s: string): boolean => {
  if (s.length > 8_192 || !/^[a-z][a-z0-9+.-]*:/i.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
};

let compiled: { agent: ValidateFunction; top: ValidateFunction } | null = null;

function validators(): { agent: ValidateFunction; top: ValidateFunction } {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: true, code: { regExp: linearRegExp } });
  ajv.addFormat('uri', isUri);
  const agent = ajv.compile(agentSchema);
  // The document level without per-item checks: one bad entry must not reject the others.
  const { $id: _id, ...topSchema } = registrySchema;
  const top = ajv.compile({
    ...topSchema,
    properties: { ...registrySchema.properties, agents: { type: 'array' }, extensions: { type: 'array' } },
  });
  compiled = { agent, top };
  return compiled;
}

const describeErrors = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => {
    const where = e.instancePath || '(entry)';
    if (e.keyword === 'additionalProperties') return `${where}: unknown property "${String(e.params.additionalProperty)}"`;
    if (e.keyword === 'propertyNames') return `${where}: unknown platform "${String(e.params.propertyName)}"`;
    return `${where} ${e.message ?? 'is invalid'}`;
  });

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, 200) : null);

/**
 * Checks beyond the schema for values Switchboard turns into folder names and process arguments.
 * The schema's version pattern is anchored only at the start ("1.0.0/../x" passes it).
 */
function extraChecks(entry: AgentManifest): string[] {
  const reasons: string[] = [];
  if (entry.id.length > 128) reasons.push('/id is longer than 128 characters');
  if (!/^[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+_-]*$/.test(entry.version) || entry.version.length > 64) {
    reasons.push('/version is not a plain version (letters, digits, ".", "+", "-", "_" only)');
  }
  for (const kind of ['npx', 'uvx'] as const) {
    const pkg = entry.distribution[kind]?.package;
    if (pkg !== undefined && (/^\s|\s$/.test(pkg) || pkg.startsWith('-') || /[\s\0]/.test(pkg))) {
      reasons.push(`/distribution/${kind}/package is not a package name`);
    }
  }
  return reasons;
}

/** Parses and validates registry.json. Invalid JSON or a document without an agents array fails as a whole. */
export function parseRegistry(text: string): ParseOutcome {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, error: 'not a registry: the document is not a JSON object' };
  const agentsValue = (doc as { agents?: unknown }).agents;
  if (!Array.isArray(agentsValue)) return { ok: false, error: 'not a registry: it has no "agents" list' };
  const { agent: validateAgent, top } = validators();
  const warnings = top(doc) ? [] : describeErrors(top.errors).map((m) => `registry document: ${m.replace('(entry)', '(root)')}`);
  const agents: AgentManifest[] = [];
  const invalid: InvalidEntry[] = [];
  const seen = new Set<string>();
  agentsValue.forEach((raw: unknown, index) => {
    const obj = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const id = str(obj.id);
    const name = str(obj.name);
    if (!validateAgent(raw)) {
      invalid.push({ index, id, name, reasons: describeErrors(validateAgent.errors) });
      return;
    }
    const entry = raw as AgentManifest;
    const reasons = extraChecks(entry);
    if (seen.has(entry.id)) reasons.push(`/id "${entry.id}" is listed twice; the first one is used`);
    if (reasons.length) {
      invalid.push({ index, id, name, reasons });
      return;
    }
    seen.add(entry.id);
    agents.push(entry);
  });
  const version = str((doc as { version?: unknown }).version);
  return { ok: true, registry: { version, agents, invalid, warnings } };
}

/** The distributions an entry offers, in Switchboard's order of preference. */
export function distributionsOf(entry: AgentManifest): DistKind[] {
  const out: DistKind[] = [];
  if (entry.distribution.binary) out.push('binary');
  if (entry.distribution.npx) out.push('npx');
  if (entry.distribution.uvx) out.push('uvx');
  return out;
}
