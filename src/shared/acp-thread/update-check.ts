import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { updateRow } from './updates';
import acpSchema from '@agentclientprotocol/sdk/schema/v1/schema.json';
import acpUnstableSchema from '@agentclientprotocol/sdk/schema/v1/schema.unstable.json';

/**
 * Update kinds checked against the SDK's unstable v1 schema: ACP stabilized subagent sessions (2026-11-20),
 * but @agentclientprotocol/sdk 2.4.0 still ships their shapes in schema.unstable.json only.
 */
const UNSTABLE_KINDS: ReadonlySet<string> = new Set(['subagent_update', 'session_message', 'session_message_chunk', 'plan_update', 'plan_removed']);

/**
 * Validates `session/update` payloads against the ACP v1 JSON schema shipped with the SDK, one compiled
 * validator per update kind (about a microsecond per chunk; the SDK's zod parse costs ~12 µs, twice per
 * notification, which would cap the stream below 50,000 updates/s).
 *
 * Fields the SDK deserializes leniently (`x-deserialize-default-on-error`, e.g. `_meta`, `messageId`)
 * are accepted as anything here too; consumers (acp-thread) read them defensively.
 */
export type UpdateCheck = { ok: true } | { ok: false; unknownKind: boolean; message: string };

/** The check as a fold's filter (WireReplayer's `acceptUpdate`): history and a restored thread fold what the live thread did. */
export const updateIsValid = (update: unknown): boolean => checkUpdate(update).ok;

type Json = unknown;

function lenient(node: Json): Json {
  if (Array.isArray(node)) return node.map(lenient);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node as Record<string, Json>)) {
    if (k === 'properties' && v && typeof v === 'object') {
      const props: Record<string, Json> = {};
      for (const [pk, pv] of Object.entries(v as Record<string, Json>)) {
        props[pk] = pv && typeof pv === 'object' && (pv as Record<string, Json>)['x-deserialize-default-on-error'] ? {} : lenient(pv);
      }
      out[k] = props;
    } else {
      out[k] = lenient(v);
    }
  }
  return out;
}

/** The property every branch of a `oneOf` fixes to a distinct constant (ContentBlock's `type`…), if there is one. */
function tagOf(branches: Json[]): string | null {
  let tag: string | null = null;
  const seen = new Set<unknown>();
  for (const b of branches) {
    const branch = b as { properties?: Record<string, { const?: unknown }>; required?: unknown[] } | null;
    const props = branch?.properties;
    const candidates = props ? Object.keys(props).filter((k) => typeof props[k]?.const === 'string' && branch?.required?.includes(k)) : [];
    const key: string | undefined = tag ?? candidates[0];
    if (key === undefined || !candidates.includes(key) || seen.has(props![key]!.const)) return null;
    tag = key;
    seen.add(props![key]!.const);
  }
  return tag;
}

/**
 * Marks tagged unions for Ajv's discriminator: it then checks the one branch the tag names. Without it, a
 * `oneOf` checks every branch to prove only one matches, building error objects for the others: for a text
 * chunk, the 4 other content kinds: ≈ 1 KB of garbage per chunk, a quarter of what a flood allocated (`npm run bench --
 * stream`: the app's CPU per 20,000 chunks went from 89–93 to 66–70 ms, most of it less garbage collection).
 */
function discriminate(node: Json): void {
  if (Array.isArray(node)) {
    for (const n of node) discriminate(n);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, Json>;
  if (Array.isArray(obj.oneOf)) {
    const tag = tagOf(obj.oneOf);
    if (tag !== null) obj.discriminator = { propertyName: tag };
  }
  for (const v of Object.values(obj)) discriminate(v);
}

interface UpdateBranch {
  properties: { sessionUpdate: { const: string } };
}

let validators: Map<string, ValidateFunction> | null = null;

/** Validators of the schema's update kinds (`only`: just these). */
function compileFrom(schema: unknown, id: string, map: Map<string, ValidateFunction>, only?: ReadonlySet<string>): void {
  const defs = lenient((schema as { $defs: Record<string, Json> }).$defs) as Record<string, Json>;
  discriminate(defs);
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, discriminator: true });
  ajv.addSchema({ $id: id, $defs: defs });
  const branches = (defs.SessionUpdate as { oneOf: UpdateBranch[] }).oneOf;
  branches.forEach((branch, i) => {
    const kind = branch.properties.sessionUpdate.const;
    if (only && !only.has(kind)) return;
    map.set(kind, ajv.compile({ $ref: `${id}#/$defs/SessionUpdate/oneOf/${i}` }));
  });
}

function compile(): Map<string, ValidateFunction> {
  const map = new Map<string, ValidateFunction>();
  compileFrom(acpSchema, 'acp', map);
  compileFrom(acpUnstableSchema, 'acp-unstable', map, UNSTABLE_KINDS);
  return map;
}

/** Compiles the validators now (they are otherwise compiled on first use, ~150 ms). */
export function warmUpdateValidators(): void {
  validators ??= compile();
}

export function checkUpdate(update: unknown): UpdateCheck {
  validators ??= compile();
  if (update === null || typeof update !== 'object' || Array.isArray(update)) {
    return { ok: false, unknownKind: false, message: 'update is not an object' };
  }
  const kind = (update as { sessionUpdate?: unknown }).sessionUpdate;
  const validate = typeof kind === 'string' ? validators.get(kind) : undefined;
  if (!validate) {
    // A kind the thread model folds (its row in updates.ts) that the SDK's schema has no shape for: the fold reads
    // it defensively, as any update (README: an update kind is added in that one table).
    if (updateRow(kind) !== undefined) return { ok: true };
    return { ok: false, unknownKind: true, message: `unknown update kind ${JSON.stringify(kind)?.slice(0, 100) ?? 'undefined'}` };
  }
  if (validate(update)) return { ok: true };
  const errors = validate.errors ?? [];
  let best = errors[0];
  for (const e of errors) if (best && e.instancePath.length > best.instancePath.length) best = e;
  return {
    ok: false,
    unknownKind: false,
    message: `invalid ${kind} update: ${best ? `${best.instancePath || '(root)'} ${best.message ?? ''}` : 'does not match the schema'}`,
  };
}

export const knownUpdateKinds = (): string[] => [...(validators ??= compile()).keys()];
