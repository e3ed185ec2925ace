import { checkExternalLink } from './links';
import { compileLinearPattern, LINEAR_PATTERN_LIMITS } from './linear-pattern';

/**
 * ACP elicitation (`elicitation/create`): what an agent asks the user, read from its untrusted request.
 * A form's `requestedSchema` is reduced to the flat, primitive fields the protocol allows (string, number,
 * integer, boolean, single and multi-select enums), within fixed bounds; anything else is refused with a
 * message for the agent. The main process, the renderer and history all read requests through here, and
 * the user's answer is checked against the same fields on both sides.
 */

export const ELICITATION_LIMITS = {
  message: 10_000,
  fields: 50,
  name: 200,
  title: 500,
  description: 5_000,
  options: 200,
  option: 500,
  pattern: LINEAR_PATTERN_LIMITS.source,
  /** Longest string a field takes (whatever maxLength the agent asks). */
  stringLength: 100_000,
  /** Longest string a field with a pattern takes (the pattern runs on it, in the main process too). */
  patternInput: 4_096,
  elicitationId: 500,
} as const;

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';
const FORMATS: ReadonlySet<string> = new Set(['email', 'uri', 'date', 'date-time']);

export interface EnumChoice {
  value: string;
  title: string;
}

interface FieldBase {
  name: string;
  title: string | null;
  description: string | null;
  required: boolean;
}

export type ElicitationField =
  | (FieldBase & {
      type: 'string';
      minLength: number | null;
      maxLength: number | null;
      pattern: string | null;
      format: StringFormat | null;
      default: string | null;
    })
  | (FieldBase & { type: 'number' | 'integer'; minimum: number | null; maximum: number | null; default: number | null })
  | (FieldBase & { type: 'boolean'; default: boolean | null })
  | (FieldBase & { type: 'enum'; options: EnumChoice[]; default: string | null })
  | (FieldBase & { type: 'multi'; options: EnumChoice[]; minItems: number | null; maxItems: number | null; default: string[] | null });

export interface ElicitationForm {
  title: string | null;
  description: string | null;
  fields: ElicitationField[];
}

/** A request as Switchboard shows it. */
export type ElicitationRequestView =
  | { mode: 'form'; message: string; toolCallId: string | null; form: ElicitationForm }
  | {
      mode: 'url';
      message: string;
      toolCallId: string | null;
      elicitationId: string;
      /** Normalised (a host in punycode), the one shown and opened. */
      url: string;
      host: string;
      /** The host is written in punycode (it may imitate another name). */
      punycode: boolean;
    };

export type ElicitationValue = string | number | boolean | string[];
export type ElicitationContent = Record<string, ElicitationValue>;
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

class Refused extends Error {}
const refuse = (message: string): never => {
  throw new Refused(message);
};

/** An optional string (absent and null are the same), at most `max` characters. */
function optText(o: Obj, key: string, max: number, where: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') return refuse(`${where}: ${key} must be a string`);
  if (v.length > max) return refuse(`${where}: ${key} is longer than ${max} characters`);
  return v;
}

function optNumber(o: Obj, key: string, where: string, integer = false): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return refuse(`${where}: ${key} must be a finite number`);
  if (integer && (!Number.isInteger(v) || v < 0)) return refuse(`${where}: ${key} must be a whole number ≥ 0`);
  return v;
}

const quote = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/**
 * Why an agent's pattern cannot be used, or null. It runs only in the linear-time engine
 * (linear-pattern.ts), so no pattern can make a check take longer than its size times the input's.
 */
export function checkPattern(pattern: string): string | null {
  const compiled = compileLinearPattern(pattern);
  return compiled.ok ? null : compiled.reason;
}

function choices(list: unknown, where: string, titled: boolean): EnumChoice[] {
  if (!Array.isArray(list) || list.length === 0) return refuse(`${where}: the choices must be a non-empty list`);
  if (list.length > ELICITATION_LIMITS.options) return refuse(`${where}: more than ${ELICITATION_LIMITS.options} choices`);
  const out: EnumChoice[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    let value: unknown;
    let title: unknown;
    if (titled) {
      if (!isObj(item)) return refuse(`${where}: each choice must be an object with const and title`);
      value = item.const;
      title = item.title;
    } else {
      value = item;
      title = item;
    }
    if (typeof value !== 'string' || typeof title !== 'string') return refuse(`${where}: choices must be strings`);
    if (value.length > ELICITATION_LIMITS.option || title.length > ELICITATION_LIMITS.option) return refuse(`${where}: a choice is longer than ${ELICITATION_LIMITS.option} characters`);
    if (seen.has(value)) return refuse(`${where}: the choice ${quote(value)} is given twice`);
    seen.add(value);
    out.push({ value, title });
  }
  return out;
}

function field(name: string, p: unknown, required: boolean): ElicitationField {
  const where = `property ${quote(name)}`;
  if (!isObj(p)) return refuse(`${where} must be an object`);
  const base: FieldBase = {
    name,
    title: optText(p, 'title', ELICITATION_LIMITS.title, where),
    description: optText(p, 'description', ELICITATION_LIMITS.description, where),
    required,
  };
  const type = p.type;
  const def = p.default === null ? undefined : p.default;
  switch (type) {
    case 'string': {
      const hasEnum = p.enum !== undefined && p.enum !== null;
      const hasOneOf = p.oneOf !== undefined && p.oneOf !== null;
      if (hasEnum || hasOneOf) {
        if (hasEnum && hasOneOf) return refuse(`${where}: enum and oneOf both given`);
        const options = hasEnum ? choices(p.enum, where, false) : choices(p.oneOf, where, true);
        if (def !== undefined && (typeof def !== 'string' || !options.some((o) => o.value === def))) return refuse(`${where}: the default is not one of the choices`);
        return { ...base, type: 'enum', options, default: (def as string | undefined) ?? null };
      }
      const format = p.format === undefined || p.format === null ? null : p.format;
      if (format !== null && (typeof format !== 'string' || !FORMATS.has(format))) return refuse(`${where}: format must be email, uri, date or date-time`);
      const pattern = optText(p, 'pattern', ELICITATION_LIMITS.pattern, where);
      const bad = pattern !== null ? checkPattern(pattern) : null;
      if (bad) return refuse(`${where}: ${bad}`);
      if (def !== undefined && (typeof def !== 'string' || def.length > ELICITATION_LIMITS.stringLength)) return refuse(`${where}: the default must be a string`);
      return {
        ...base,
        type: 'string',
        minLength: optNumber(p, 'minLength', where, true),
        maxLength: optNumber(p, 'maxLength', where, true),
        pattern,
        format: format as StringFormat | null,
        default: (def as string | undefined) ?? null,
      };
    }
    case 'number':
    case 'integer': {
      if (def !== undefined && (typeof def !== 'number' || !Number.isFinite(def) || (type === 'integer' && !Number.isInteger(def)))) {
        return refuse(`${where}: the default must be ${type === 'integer' ? 'a whole number' : 'a number'}`);
      }
      return { ...base, type, minimum: optNumber(p, 'minimum', where), maximum: optNumber(p, 'maximum', where), default: (def as number | undefined) ?? null };
    }
    case 'boolean':
      if (def !== undefined && typeof def !== 'boolean') return refuse(`${where}: the default must be true or false`);
      return { ...base, type: 'boolean', default: (def as boolean | undefined) ?? null };
    case 'array': {
      const items = p.items;
      if (!isObj(items)) return refuse(`${where}: items must be an object`);
      let options: EnumChoice[];
      if (items.anyOf !== undefined && items.anyOf !== null) options = choices(items.anyOf, where, true);
      else if (items.type === 'string' && items.enum !== undefined) options = choices(items.enum, where, false);
      else return refuse(`${where}: only multi-select lists of string choices are supported`);
      if (def !== undefined && (!Array.isArray(def) || !def.every((v) => typeof v === 'string' && options.some((o) => o.value === v)))) {
        return refuse(`${where}: the default must list some of the choices`);
      }
      return {
        ...base,
        type: 'multi',
        options,
        minItems: optNumber(p, 'minItems', where, true),
        maxItems: optNumber(p, 'maxItems', where, true),
        default: (def as string[] | undefined) ?? null,
      };
    }
    default:
      return refuse(`${where} has type ${typeof type === 'string' ? quote(type) : 'missing'}; Switchboard supports string, number, integer, boolean and array (multi-select)`);
  }
}

function form(schema: unknown): ElicitationForm {
  if (!isObj(schema)) return refuse('requestedSchema must be an object');
  if (schema.type !== undefined && schema.type !== 'object') return refuse('requestedSchema must be of type object');
  const props = schema.properties === undefined ? {} : schema.properties;
  if (!isObj(props)) return refuse('requestedSchema.properties must be an object');
  const names = Object.keys(props);
  if (names.length > ELICITATION_LIMITS.fields) return refuse(`requestedSchema has more than ${ELICITATION_LIMITS.fields} properties`);
  const req = schema.required === undefined || schema.required === null ? [] : schema.required;
  if (!Array.isArray(req) || !req.every((r) => typeof r === 'string')) return refuse('requestedSchema.required must be a list of property names');
  const required = new Set(req as string[]);
  const fields = names.map((name) => {
    if (name.length === 0 || name.length > ELICITATION_LIMITS.name) return refuse(`a property name is empty or longer than ${ELICITATION_LIMITS.name} characters`);
    return field(name, props[name], required.has(name));
  });
  return {
    title: optText(schema, 'title', ELICITATION_LIMITS.title, 'requestedSchema'),
    description: optText(schema, 'description', ELICITATION_LIMITS.description, 'requestedSchema'),
    fields,
  };
}

/** An `elicitation/create` request's params, checked; `message` of a refusal is meant for the agent. */
export function parseElicitation(params: unknown): Parsed<ElicitationRequestView> {
  try {
    if (!isObj(params)) return refuse('the params must be an object');
    const message = params.message;
    if (typeof message !== 'string') return refuse('message must be a string');
    if (message.length > ELICITATION_LIMITS.message) return refuse(`message is longer than ${ELICITATION_LIMITS.message} characters`);
    const toolCallId = typeof params.toolCallId === 'string' ? params.toolCallId.slice(0, 500) : null;
    if (params.mode === 'form') {
      if (!own(params, 'requestedSchema')) return refuse('a form elicitation needs requestedSchema');
      return { ok: true, value: { mode: 'form', message, toolCallId, form: form(params.requestedSchema) } };
    }
    if (params.mode === 'url') {
      const id = params.elicitationId;
      if (typeof id !== 'string' || id.length === 0 || id.length > ELICITATION_LIMITS.elicitationId) return refuse('a URL elicitation needs an elicitationId (a string)');
      if (typeof params.url !== 'string') return refuse('a URL elicitation needs a url');
      const link = checkExternalLink(params.url);
      if (!link.ok) return refuse(`the url is refused: ${link.reason}`);
      const punycode = link.host.split('.').some((label) => label.toLowerCase().startsWith('xn--'));
      return { ok: true, value: { mode: 'url', message, toolCallId, elicitationId: id, url: link.url, host: link.host, punycode } };
    }
    return refuse(`mode ${typeof params.mode === 'string' ? quote(params.mode) : '(missing)'} is not supported: Switchboard supports form and url`);
  } catch (e) {
    if (e instanceof Refused) return { ok: false, message: e.message };
    throw e;
  }
}

/** Longest value a format is checked on (an email address is at most 254 characters, RFC 5321). */
const FORMAT_INPUT: Record<StringFormat, number> = { email: 254, uri: 8_192, date: 10, 'date-time': 64 };
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** One `@`, a non-empty local part, a dotted domain, no space: one pass over the characters. */
function isEmail(v: string): boolean {
  const at = v.indexOf('@');
  if (at <= 0 || at !== v.lastIndexOf('@')) return false;
  if (/\s/u.test(v)) return false;
  const domain = v.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  return dot > 0 && dot < domain.length - 1;
}

function formatError(format: StringFormat, v: string): string | null {
  const words = { email: 'an email address', uri: 'a URI (as https://example.com)', date: 'a date (YYYY-MM-DD)', 'date-time': 'a date and time (as 2026-01-31T09:30:00Z)' }[format];
  if (v.length > FORMAT_INPUT[format]) return `${words}, at most ${FORMAT_INPUT[format]} characters`;
  switch (format) {
    case 'email':
      return isEmail(v) ? null : words;
    case 'uri':
      try {
        new URL(v);
        return null;
      } catch {
        return words;
      }
    case 'date': {
      const m = DATE.exec(v);
      const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
      return d && d.getUTCMonth() === Number(m![2]) - 1 && d.getUTCDate() === Number(m![3]) ? null : words;
    }
    case 'date-time':
      return DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)) ? null : words;
  }
}

/** Why `value` does not fit `f` (in words for the user), or null; `undefined` is an empty field. */
export function fieldError(f: ElicitationField, value: ElicitationValue | undefined): string | null {
  if (value === undefined) return f.required ? 'Required.' : null;
  switch (f.type) {
    case 'string': {
      if (typeof value !== 'string') return 'Must be text.';
      if (value.length > ELICITATION_LIMITS.stringLength) return `At most ${ELICITATION_LIMITS.stringLength} characters.`;
      if (f.minLength !== null && value.length < f.minLength) return `At least ${f.minLength} characters.`;
      if (f.maxLength !== null && value.length > f.maxLength) return `At most ${f.maxLength} characters.`;
      if (f.format !== null) {
        const want = formatError(f.format, value);
        if (want) return `Must be ${want}.`;
      }
      if (f.pattern !== null) {
        if (value.length > ELICITATION_LIMITS.patternInput) return `At most ${ELICITATION_LIMITS.patternInput} characters.`;
        const compiled = compileLinearPattern(f.pattern);
        if (!compiled.ok) return `The agent's pattern cannot be checked: ${compiled.reason}.`;
        if (!compiled.pattern.test(value)) return `Must match the pattern ${f.pattern}.`;
      }
      return null;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'Must be a number.';
      if (f.type === 'integer' && !Number.isInteger(value)) return 'Must be a whole number.';
      if (f.minimum !== null && value < f.minimum) return `At least ${f.minimum}.`;
      if (f.maximum !== null && value > f.maximum) return `At most ${f.maximum}.`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : 'Must be yes or no.';
    case 'enum':
      return typeof value === 'string' && f.options.some((o) => o.value === value) ? null : 'Pick one of the choices.';
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => f.options.some((o) => o.value === v))) return 'Pick among the choices.';
      if (new Set(value).size !== value.length) return 'Each choice at most once.';
      if (f.minItems !== null && value.length < f.minItems) return `Pick at least ${f.minItems}.`;
      if (f.maxItems !== null && value.length > f.maxItems) return `Pick at most ${f.maxItems}.`;
      if (f.required && value.length === 0) return 'Required.';
      return null;
    }
  }
}

/** Errors of a whole answer, by field name (empty: it can be sent); names the form does not have are errors too. */
export function contentErrors(form: ElicitationForm, content: Readonly<Record<string, unknown>>): Record<string, string> {
  const errors: Record<string, string> = {};
  const names = new Set(form.fields.map((f) => f.name));
  for (const key of Object.keys(content)) if (!names.has(key)) errors[key] = 'Not a field of this form.';
  for (const f of form.fields) {
    const v = own(content, f.name) ? content[f.name] : undefined;
    const err = fieldError(f, v as ElicitationValue | undefined);
    if (err) errors[f.name] = err;
  }
  return errors;
}
