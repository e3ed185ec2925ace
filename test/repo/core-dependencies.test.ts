import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { repoRoot } from '../support/app-server';

/**
 * Which concern of src/main/core may import which (as VS Code's code-import-patterns). Every concern may
 * also use the three below it all: base (lifecycle, events, router), platform (the machine: paths, env,
 * signals, /proc) and host (where work happens). They sit in that order: base imports no concern, platform
 * only base, host base and platform. A concern imports nothing outside core but src/shared, and there is
 * no cycle between concerns. A new concern gets a row here.
 */
export const CORE_DEPENDENCIES: Record<string, readonly string[]> = {
  base: [],
  platform: ['base'],
  host: ['base', 'platform'],
  store: [],
  settings: ['store'],
  agents: ['store'],
  history: ['store'],
  'history-import': ['store'],
  terminals: [],
  remote: [],
  // containers: sessions in containers (the engine, devcontainer.json and its fence, a container as a Host).
  containers: [],
  mcp: ['agents'],
  checkpoints: ['settings', 'store'],
  compare: ['agents', 'store', 'worktrees'],
  worktrees: ['store'],
  registry: ['agents', 'settings', 'store'],
  // registry: how an agent installed here runs on an SSH host (registry/host-launch.ts).
  acp: ['agents', 'mcp', 'registry', 'settings', 'store', 'terminals'],
};
const EVERYONE = ['base', 'platform', 'host'];

const C = '^src/main/core/';

function rules(): IForbiddenRuleType[] {
  const out: IForbiddenRuleType[] = Object.entries(CORE_DEPENDENCIES).map(([concern, allowed]) => {
    const below = concern === 'base' || concern === 'platform' || concern === 'host' ? allowed : [...new Set([...EVERYONE, ...allowed])];
    return {
      name: `core-${concern}`,
      comment: `${concern} may import ${below.length > 0 ? below.join(', ') : 'no other concern'}`,
      severity: 'error',
      from: { path: `${C}${concern}/` },
      to: { path: C, pathNot: [`${C}(${[concern, ...below].join('|')})/`] },
    } satisfies IForbiddenRuleType;
  });
  out.push({
    name: 'core-stays-in-core',
    comment: 'core/ is plain Node below the transports: it imports core/, src/shared, packages and Node only.',
    severity: 'error',
    from: { path: C },
    to: { path: '^src/', pathNot: [C, '^src/shared/'] },
  });
  return out;
}

async function violations(baseDir: string, ruleSet: IForbiddenRuleType[], extra: Partial<ICruiseOptions> = {}): Promise<string[]> {
  const r = await cruise(
    ['src/main/core'],
    {
      baseDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: ruleSet },
      ...extra,
    },
    undefined,
    { tsConfig: { fileName: path.join(repoRoot, 'tsconfig.json') } },
  );
  const output = r.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${[v.from, ...(v.cycle?.length ? v.cycle.map((c) => c.name) : [v.to])].join(' → ')}`);
}

async function check(baseDir: string): Promise<string[]> {
  const unlisted = readdirSync(path.join(baseDir, 'src/main/core'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !(d.name in CORE_DEPENDENCIES))
    .map((d) => `concern-not-in-table: ${d.name}`);
  const files = await violations(baseDir, rules());
  const cycles = await violations(baseDir, [{ name: 'no-cycle-between-concerns', severity: 'error', from: { path: C }, to: { circular: true } }], {
    collapse: `${C}[^/]+/`,
  });
  return [...unlisted, ...files, ...cycles];
}

describe('core dependencies', () => {
  it('each concern of src/main/core imports only what its row of the table allows, without cycles between concerns', async () => {
    expect(await check(repoRoot)).toEqual([]);
  }, 90_000);

  it('fails on a tree that breaks the table (the check itself works)', async () => {
    const found = await check(path.join(repoRoot, 'test/fixtures/core-dependencies'));
    const text = found.join('\n');
    expect(text).toContain('core-store: src/main/core/store/log.ts → src/main/core/acp/service.ts');
    expect(text).toContain('core-base: src/main/core/base/events.ts → src/main/core/host/port.ts');
    expect(text).toContain('core-stays-in-core: src/main/core/history/rows.ts → src/main/server/thing.ts');
    expect(text).toContain('concern-not-in-table: widgets');
    expect(found.filter((v) => v.startsWith('no-cycle-between-concerns')).join('\n')).toMatch(/core\/(store|acp)\//);
    // What the table allows is not flagged: acp on the store and the host port, host on base.
    expect(text).not.toMatch(/core-acp:|core-host:/);
  }, 90_000);
});
