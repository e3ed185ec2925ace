import { describe, expect, it } from 'vitest';
import { displayedText, labelDeception, nameContradiction, nameIntent, nameScope } from '../../../src/shared/acp-thread/permission-option';

describe('permission option names against their kinds', () => {
  it('reads what a label means, whatever its case, punctuation or look-alike letters', () => {
    const cases: Array<[string, 'allow' | 'reject' | null]> = [
      ['Reject', 'reject'],
      ['REJECT!!!', 'reject'],
      ['  deny.', 'reject'],
      ['No', 'reject'],
      ['No, and tell Claude what to do differently', 'reject'],
      ['Cancel', 'reject'],
      ["Don't allow", 'reject'],
      ['Do not allow', 'reject'],
      ['Never', 'reject'],
      ['Not now', 'reject'],
      ['R\u0435ject', 'reject'], // Cyrillic е
      ['Re\u200bject', 'reject'], // zero-width space
      ['Ｒｅｊｅｃｔ', 'reject'], // full-width
      ['Nein', 'reject'],
      ['拒绝', 'reject'],
      ['Allow', 'allow'],
      ['Always allow', 'allow'],
      ['Yes', 'allow'],
      ["Yes, and don't ask again for this command", 'allow'],
      ['Approve for session', 'allow'],
      ['OK', 'allow'],
      ['\u041e\u041a', 'allow'], // Cyrillic ОК
      ['Oui', 'allow'],
      ['Details', null],
      ['', null],
    ];
    for (const [name, intent] of cases) expect(nameIntent(name), name).toBe(intent);
    expect(nameScope('Allow once')).toBe('once');
    expect(nameScope('Just this time')).toBe('once');
    expect(nameScope("Yes, don't ask again")).toBe('always');
    expect(nameScope('Allow')).toBe(null);
  });

  it('flags a name that contradicts the kind, and only then', () => {
    expect(nameContradiction({ name: 'Reject', kind: 'allow_always' })).toMatch(/labelled this option “Reject”, but it would always allow/);
    expect(nameContradiction({ name: 'deny', kind: 'allow_once' })).toMatch(/would allow once/);
    expect(nameContradiction({ name: 'Allow', kind: 'reject_once' })).toMatch(/would reject once/);
    expect(nameContradiction({ name: 'Yes', kind: 'reject_always' })).toMatch(/would always reject/);
    // Scope: "once" on an always kind stores a rule the user did not ask for.
    expect(nameContradiction({ name: 'Allow once', kind: 'allow_always' })).toMatch(/always allow \(a rule is stored\)/);
    expect(nameContradiction({ name: 'Always allow', kind: 'allow_once' })).toMatch(/allow once only/);
    // Honest labels of real agents.
    for (const [name, kind] of [
      ['Allow once', 'allow_once'],
      ['Always allow', 'allow_always'],
      ['Reject', 'reject_once'],
      ['Always reject', 'reject_always'],
      ['Yes', 'allow_once'],
      ["Yes, and don't ask again for this command", 'allow_always'],
      ['No, and tell Claude what to do differently', 'reject_once'],
      ['Approve for session', 'allow_always'],
      ['Deny', 'reject_once'],
      ['Run it', 'allow_once'],
    ] as const) {
      expect(nameContradiction({ name, kind }), `${name} / ${kind}`).toBe(null);
    }
  });
});

describe('labels with direction controls, invisible characters or look-alikes', () => {
  const REJECTS = ['Reject', 'Deny', 'No', 'Cancel', 'Decline', 'Never'];
  const reverse = (s: string) => [...s].reverse().join('');
  // A small deterministic generator: the variants differ per run of the list, not per run of the suite.
  let seed = 24;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const INVISIBLE = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD'];
  const variants = REJECTS.flatMap((w) => [
    `\u202E${reverse(w)}`,
    `\u202E${reverse(w)}\u202C`,
    `Yes \u202E${reverse(w)}\u202C`,
    `\u2067\u202E${reverse(w)}\u202C\u2069`,
    ((at: number) => `${w.slice(0, at)}${INVISIBLE[rand(INVISIBLE.length)]}${w.slice(at)}`)(1 + rand(w.length - 1)),
  ]);

  it('shows a right-to-left override as displayed: "\\u202Etcejer" reads "reject"', () => {
    expect(displayedText('\u202Etcejer')).toBe('reject');
    expect(displayedText('a\u202Ecb\u202Cd')).toBe('abcd');
    expect(displayedText('\u2067abc\u2069')).toBe('abc');
  });

  it.each(variants.map((v) => [JSON.stringify(v), v]))('flags %s on an "always allow" option, and refuses its rule', (_, name) => {
    expect(labelDeception(name)).not.toBeNull();
    // Shown as a refusal (the override reversed): also flagged as contradicting its kind.
    if (/^\P{L}*\u202E/u.test(name)) expect(nameContradiction({ name, kind: 'allow_always' })).toMatch(/but it would always allow/);
  });

  it('finds look-alike letters: other scripts inside a Latin word, fullwidth and mathematical letters', () => {
    for (const name of ['R\u0435ject', 'Allоw', 'Ｒｅｊｅｃｔ', '𝐑𝐞𝐣𝐞𝐜𝐭', 'Always аllow']) expect(labelDeception(name)).not.toBeNull();
  });

  it('lets the real agents’ labels and other scripts’ own words pass', () => {
    for (const name of [
      'Yes, allow all edits during this session',
      'Always Allow',
      'Allow for this session',
      'Allow All Edits',
      'Always Allow in project: echo *',
      "Yes, and don't ask again for git diff:* commands in ws",
      'Yes, and allow access to ws/ and echo commands',
      'Разрешить всегда',
      '始终允许',
      'Toujours autoriser l’accès',
    ])
      expect({ name, deception: labelDeception(name) }).toEqual({ name, deception: null });
  });
});
