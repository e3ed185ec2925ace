import { describe, expect, it } from 'vitest';
import { checkPattern, contentErrors, parseElicitation, type ElicitationForm } from '../../src/shared/elicitation';
import { compileLinearPattern } from '../../src/shared/linear-pattern';

const form = (properties: Record<string, unknown>, required: string[] = []) => parseElicitation({ sessionId: 's', mode: 'form', message: 'Q', requestedSchema: { type: 'object', properties, required } });

function fieldsOf(properties: Record<string, unknown>, required: string[] = []): ElicitationForm {
  const r = form(properties, required);
  if (!r.ok || r.value.mode !== 'form') throw new Error(r.ok ? 'not a form' : r.message);
  return r.value.form;
}

describe('reading an elicitation request (untrusted)', () => {
  it('reads every primitive the protocol allows, with titles, defaults and required', () => {
    const f = fieldsOf(
      {
        s: { type: 'string', title: 'S', minLength: 1, maxLength: 5, format: 'email', default: 'a@b.co' },
        n: { type: 'number', minimum: 0.5, maximum: 2 },
        i: { type: 'integer', default: 3 },
        b: { type: 'boolean', default: true },
        e: { type: 'string', enum: ['x', 'y'] },
        o: { type: 'string', oneOf: [{ const: 'a', title: 'Alpha' }] },
        m: { type: 'array', items: { type: 'string', enum: ['p', 'q'] }, minItems: 1, default: ['p'] },
        t: { type: 'array', items: { anyOf: [{ const: 'r', title: 'Red' }] } },
      },
      ['s', 'm'],
    );
    expect(f.fields.map((x) => [x.name, x.type, x.required])).toEqual([
      ['s', 'string', true],
      ['n', 'number', false],
      ['i', 'integer', false],
      ['b', 'boolean', false],
      ['e', 'enum', false],
      ['o', 'enum', false],
      ['m', 'multi', true],
      ['t', 'multi', false],
    ]);
    expect(f.fields[5]).toMatchObject({ options: [{ value: 'a', title: 'Alpha' }] });
  });

  it('refuses what it cannot show safely, saying why', () => {
    const refused = (params: unknown) => {
      const r = parseElicitation(params);
      if (r.ok) throw new Error('accepted');
      return r.message;
    };
    const f = (properties: unknown) => ({ sessionId: 's', mode: 'form', message: 'Q', requestedSchema: { type: 'object', properties } });
    expect(refused(f({ a: { type: 'object' } }))).toMatch(/type "object"/);
    expect(refused(f({ a: { type: 'array', items: { type: 'object' } } }))).toMatch(/only multi-select/);
    expect(refused(f({ a: { type: 'string', format: 'password' } }))).toMatch(/format must be/);
    expect(refused(f({ a: { type: 'string', minLength: -1 } }))).toMatch(/whole number/);
    expect(refused(f({ a: { type: 'number', maximum: 'big' } }))).toMatch(/finite number/);
    expect(refused(f({ a: { type: 'string', enum: ['x', 'x'] } }))).toMatch(/given twice/);
    expect(refused(f({ a: { type: 'string', enum: Array.from({ length: 201 }, (_, i) => `v${i}`) } }))).toMatch(/more than 200 choices/);
    expect(refused(f({ a: { type: 'boolean', default: 'yes' } }))).toMatch(/default must be true or false/);
    expect(refused(f([1]))).toMatch(/properties must be an object/);
    expect(refused({ sessionId: 's', mode: 'form', message: 'Q' })).toMatch(/needs requestedSchema/);
    expect(refused({ sessionId: 's', mode: 'form', message: 'x'.repeat(10_001), requestedSchema: {} })).toMatch(/message is longer/);
    expect(refused({ sessionId: 's', mode: 'url', message: 'Q', url: 'https://x.example' })).toMatch(/elicitationId/);
    expect(refused({ sessionId: 's', mode: 'url', message: 'Q', elicitationId: 'e', url: 'vscode://open' })).toMatch(/only http and https/);
  });

  it('URL mode: the normalised URL and host; punycode hosts are flagged', () => {
    const r = parseElicitation({ sessionId: 's', mode: 'url', message: 'Q', elicitationId: 'e', url: 'https://аpple.com/login' });
    expect(r.ok && r.value.mode === 'url' && [r.value.host, r.value.punycode]).toEqual(['xn--pple-43d.com', true]);
  });

  it('patterns run in a linear-time engine: nested repeats are fine, what RE2 cannot run is refused in words', () => {
    for (const ok of ['^(a{0,30}){8}$', '^(a+)+$', '(a|a)*', '^[a-z][a-z0-9-]*$', '^(foo)+$', '(?:ab)?c', '^\\d{4}-\\d{2}$', '^[\\w.+-]+@[\\w-]+\\.[a-z]{2,}$', '^\\u00e9+$', '^(?<word>\\w+)$']) {
      expect(checkPattern(ok), ok).toBeNull();
    }
    expect(checkPattern('^(\\w+)\\1$')).toMatch(/linear-time engine cannot run \(backreferences, lookaround/);
    expect(checkPattern('^(?=a)a$')).toMatch(/backreferences, lookaround/);
    expect(checkPattern('((a{0,100}){100}){100}')).toMatch(/linear-time engine cannot run.*invalid repeat count/);
    expect(checkPattern('(?:\\w{0,100}){10}')).toMatch(/too large/);
    expect(checkPattern('(')).toMatch(/not a valid regular expression/);
    const r = form({ x: { type: 'string', pattern: '(?<=a)b' } });
    expect(!r.ok && r.message).toMatch(/property "x": the pattern uses what a linear-time engine cannot run/);
  });
});

describe('checking an answer against the form', () => {
  const f = fieldsOf(
    {
      name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
      when: { type: 'string', format: 'date' },
      port: { type: 'integer', minimum: 1 },
      pick: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2 },
    },
    ['name'],
  );
  it('names each wrong field', () => {
    expect(contentErrors(f, { name: 'ok' })).toEqual({});
    expect(contentErrors(f, {})).toEqual({ name: 'Required.' });
    expect(contentErrors(f, { name: 'NO', when: '2026-02-30', port: 1.5, pick: ['a', 'b', 'c'], other: 1 })).toEqual({
      other: 'Not a field of this form.',
      name: 'Must match the pattern ^[a-z]+$.',
      when: 'Must be a date (YYYY-MM-DD).',
      port: 'Must be a whole number.',
      pick: 'Pick at most 2.',
    });
    expect(contentErrors(f, { name: 'abcdefghi', port: '3', pick: ['z'] })).toEqual({ name: 'At most 8 characters.', port: 'Must be a number.', pick: 'Pick among the choices.' });
    // A patterned field takes at most 4,096 characters, whatever maxLength says.
    const long = fieldsOf({ p: { type: 'string', pattern: '^a+$' } });
    expect(contentErrors(long, { p: 'a'.repeat(4_097) })).toEqual({ p: 'At most 4096 characters.' });
    expect(contentErrors(long, { p: 'a'.repeat(4_096) })).toEqual({});
    expect(contentErrors(fieldsOf({ u: { type: 'string', pattern: '^\\u00e9$' } }), { u: 'é' })).toEqual({});
  });
});

describe('agent patterns and formats cost at most linear work', () => {
  /** The input as UTF-8 bytes behind a proxy counting each read: the engine's work, whatever the clock says. */
  function reads(pattern: string, input: string): number {
    const compiled = compileLinearPattern(pattern);
    if (!compiled.ok) throw new Error(compiled.reason);
    let n = 0;
    const bytes = Array.from(new TextEncoder().encode(input));
    const counted = new Proxy(bytes, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) n++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    compiled.pattern.test(counted);
    return n;
  }

  /** A seeded generator, so that a failure names the pattern that caused it and can be replayed. */
  function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
  }
  function hostile(rand: () => number, depth = 0): string {
    const atoms = ['a', 'b', '.', '\\w', '[ab]', 'a?', '\\d', '(?:a|ab)'];
    const quant = ['*', '+', '?', '{0,30}', '{1,9}', '{2}', '{0,5}', '*?', '', '', ''];
    const pick = <T,>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const parts: string[] = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < n; i++) {
      const inner = depth < 2 && rand() < 0.6 ? `(${hostile(rand, depth + 1)}${rand() < 0.4 ? `|${hostile(rand, depth + 1)}` : ''})` : pick(atoms);
      parts.push(inner + pick(quant));
    }
    return parts.join('');
  }

  it('the named pattern, on its hostile default, reads each byte a bounded number of times', () => {
    const one = reads('^(a{0,30}){8}$', `${'a'.repeat(241)}b`);
    const ten = reads('^(a{0,30}){8}$', `${'a'.repeat(2_410)}b`);
    expect(ten).toBeLessThanOrEqual(one * 12);
    const f = fieldsOf({ p: { type: 'string', pattern: '^(a{0,30}){8}$', default: `${'a'.repeat(241)}b` } });
    expect(contentErrors(f, { p: `${'a'.repeat(241)}b` })).toEqual({ p: 'Must match the pattern ^(a{0,30}){8}$.' });
  });

  it('random nested, alternating and bounded-repeat patterns: either refused, or linear in the input', () => {
    const rand = rng(0x5eed);
    let ran = 0;
    for (let i = 0; i < 150; i++) {
      const pattern = `^${hostile(rand)}$`;
      const compiled = compileLinearPattern(pattern);
      if (!compiled.ok) {
        expect(compiled.reason, pattern).toMatch(/linear-time engine cannot run|too large|not a valid regular expression/);
        continue;
      }
      ran++;
      const unit = rand() < 0.5 ? 'a' : 'ab';
      const one = reads(pattern, `${unit.repeat(40)}!`);
      const ten = reads(pattern, `${unit.repeat(400)}!`);
      expect(ten, pattern).toBeLessThanOrEqual(Math.max(one, 1) * 12);
    }
    expect(ran).toBeGreaterThan(75);
  });

  it('format checks bound their input and are linear (the email check was quadratic)', () => {
    const email = fieldsOf({ e: { type: 'string', format: 'email' } });
    expect(contentErrors(email, { e: `${'a'.repeat(99_999)}@` })).toEqual({ e: 'Must be an email address, at most 254 characters.' });
    expect(contentErrors(email, { e: 'me@example.org' })).toEqual({});
    for (const bad of ['me@example', '@example.org', 'me@@example.org', 'me @example.org', 'me@.org', 'me@example.']) expect(contentErrors(email, { e: bad }), bad).toEqual({ e: 'Must be an email address.' });
    const dt = fieldsOf({ d: { type: 'string', format: 'date-time' }, u: { type: 'string', format: 'uri' } });
    expect(contentErrors(dt, { d: `2026-01-01T00:00:00.${'1'.repeat(99_000)}`, u: `https://x.example/${'a'.repeat(99_000)}` })).toEqual({
      d: 'Must be a date and time (as 2026-01-31T09:30:00Z), at most 64 characters.',
      u: 'Must be a URI (as https://example.com), at most 8192 characters.',
    });
  });
});
