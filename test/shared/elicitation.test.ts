import { describe, expect, it } from 'vitest';
import { checkPattern, contentErrors, parseElicitation, type ElicitationForm } from '../../src/shared/elicitation';

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

  it('patterns that could backtrack for ever are refused', () => {
    for (const bad of ['^(a+)+$', '(a|a)*', '(x*)*y', '((ab)*c)+', '(a{1,})+', 'a*a*a*a*b', 'a+b+c{2,}d*']) expect(checkPattern(bad), bad).not.toBeNull();
    for (const ok of ['^[a-z][a-z0-9-]*$', '^(foo)+$', '^\\(a+\\)+$', '^[(a+)]+$', '(?:ab)?c', '^\\d{4}-\\d{2}$', '^[\\w.+-]+@[\\w-]+\\.[a-z]{2,}$', '^a{1,5}b{2}$']) {
      expect(checkPattern(ok), ok).toBeNull();
    }
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
    // A patterned field takes at most 256 characters, whatever maxLength says.
    const long = fieldsOf({ p: { type: 'string', pattern: '^a+$' } });
    expect(contentErrors(long, { p: 'a'.repeat(257) })).toEqual({ p: 'At most 256 characters.' });
  });
});
