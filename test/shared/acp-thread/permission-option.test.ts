import { describe, expect, it } from 'vitest';
import { nameContradiction, nameIntent, nameScope } from '../../../src/shared/acp-thread/permission-option';

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
