import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import acpSchema from '@agentclientprotocol/sdk/schema/v1/schema.json';

/**
 * Validates `session/update` payloads against the ACP v1 JSON schema shipped with the SDK, one compiled
 * validator per update kind (about a microsecond per chunk; the SDK's zod parse costs ~12 µs, twice per
 * notification, which would cap the stream below 50,000 updates/s).
 *
 * Fields the SDK deserializes leniently (`x-deserialize-default-on-error`, e.g. `_meta`, `messageId`)
 * are accepted as anything here too; consumers (acp-thread) read them defensively.
 */
export type UpdateCheck = { ok: true } | { ok: false; unknownKind: boolean; message: string };

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

interface UpdateBranch {
  properties: { sessionUpdate: { const: string } };
}

let validators: Map<string, ValidateFunction> | null = null;

function compile(): Map<string, ValidateFunction> {
  const defs = lenient((acpSchema as unknown as { $defs: Record<string, Json> }).$defs) as Record<string, Json>;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ $id: 'acp', $defs: defs });
  const branches = (defs.SessionUpdate as { oneOf: UpdateBranch[] }).oneOf;
  const map = new Map<string, ValidateFunction>();
  branches.forEach((branch, i) => {
    map.set(branch.properties.sessionUpdate.const, ajv.compile({ $ref: `acp#/$defs/SessionUpdate/oneOf/${i}` }));
  });
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
