import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../src/main/core/registry/validate';

const fixtures = join(__dirname, '../../fixtures/registry');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');

describe('registry validation (the registry JSON schema, draft-07)', () => {
  it('accepts every entry of the real registry and of the offline one', () => {
    for (const file of ['registry.dist.json', 'registry.offline.json']) {
      const r = parseRegistry(read(file));
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.registry.invalid).toEqual([]);
      expect(r.registry.warnings).toEqual([]);
      expect(r.registry.agents.length).toBe(file === 'registry.dist.json' ? 11 : 6);
    }
    const dist = parseRegistry(read('registry.dist.json'));
    expect(dist.ok && dist.registry.agents.map((a) => a.id)).toContain('codex-acp');
  });

  it('lists an invalid entry with its reasons and keeps the others', () => {
    const doc = JSON.parse(read('registry.offline.json')) as { agents: unknown[] };
    const good = doc.agents[0] as Record<string, unknown>;
    doc.agents = [
      good,
      { ...good, id: 'Bad_Id', distribution: { npx: {} } },
      { id: 'no-dist', name: 'No Dist', version: '1.0.0', description: 'x', distribution: {} },
      { ...good, id: 'bin-bad', distribution: { binary: { 'plan9-mips': { archive: 'https://x/y.zip', cmd: './y' } } } },
      { ...good, id: 'sneaky', version: '1.0.0/../../../etc' },
      { ...good },
      'not an object',
    ];
    const r = parseRegistry(JSON.stringify(doc));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.registry.agents.map((a) => a.id)).toEqual([good.id]);
    const byIndex = new Map(r.registry.invalid.map((i) => [i.index, i]));
    expect(byIndex.get(1)!.reasons.join('\n')).toMatch(/\/id must match pattern/);
    expect(byIndex.get(1)!.reasons.join('\n')).toMatch(/\/distribution\/npx must have required property 'package'/);
    expect(byIndex.get(1)!.id).toBe('Bad_Id');
    expect(byIndex.get(2)!.reasons.join('\n')).toMatch(/\/distribution must NOT have fewer than 1 properties/);
    expect(byIndex.get(3)!.reasons.join('\n')).toMatch(/unknown platform "plan9-mips"/);
    expect(byIndex.get(4)!.reasons.join('\n')).toMatch(/\/version is not a plain version/);
    expect(byIndex.get(5)!.reasons.join('\n')).toMatch(/listed twice/);
    expect(byIndex.get(6)!.reasons.join('\n')).toMatch(/must be object/);
    expect(byIndex.get(6)!.id).toBeNull();
  });

  it('rejects documents that are not registries as a whole', () => {
    expect(parseRegistry('{"version": "1.0.0", "agents": [')).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(parseRegistry('[]')).toMatchObject({ ok: false, error: expect.stringMatching(/not a JSON object/) });
    expect(parseRegistry('{"agents": 5}')).toMatchObject({ ok: false, error: expect.stringMatching(/no "agents" list/) });
  });

  it('reports document-level schema problems as warnings without dropping entries', () => {
    const doc = JSON.parse(read('registry.offline.json')) as Record<string, unknown>;
    delete doc.extensions;
    doc.extra = true;
    const r = parseRegistry(JSON.stringify(doc));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.registry.agents).toHaveLength(6);
    expect(r.registry.warnings.join('\n')).toMatch(/extensions/);
    expect(r.registry.warnings.join('\n')).toMatch(/unknown property "extra"/);
  });
});
