import type { IForbiddenRuleType } from 'dependency-cruiser';

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
  tasks: ['store'],
  delegation: ['store', 'worktrees'],
};
const EVERYONE = ['base', 'platform', 'host'];

const C = '^src/main/core/';

export function coreRules(): IForbiddenRuleType[] {
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
  out.push({
    name: 'core-concerns-use-the-host-port',
    comment: 'A concern uses a Host through the port (host/*.ts); how one kind works (host/local, host/ssh) is the host folder’s own. remote/ makes the SSH hosts.',
    severity: 'error',
    from: { path: C, pathNot: [`${C}(host|remote)/`] },
    to: { path: `${C}host/[^/]+/` },
  });
  return out;
}


/** The core concern a file belongs to (null: outside core). */
export const concernOf = (file: string): string | null => /^src\/main\/core\/([^/]+)\//.exec(file)?.[1] ?? null;

/**
 * The renderer's allowed dependencies (as VS Code's code-import-patterns): a feature stands on its own, and
 * the parts below the features do not know them.
 *   features/<name>/  imports its own files, app/, ui/, ipc/, state/, @shared, packages, and other features'
 *                     index.ts only, with no cycle between features;
 *   app/ (the shell and its services), ui/ (generic components), state/ and ipc/ import no feature
 *                     (features register through app/contributions; main.tsx and features/index.ts compose);
 *   ui/               sits below app/: generic components use no shell service (a component that does lives in app/);
 *   state/ and ipc/   sit below app/ and ui/.
 * No cycle between the parts (each feature, app and ui, state, ipc) either.
 */
const R = '^src/renderer/src/';

export const RENDERER_RULES: IForbiddenRuleType[] = [
  {
    name: 'feature-imports-only-allowed-layers',
    comment: 'A feature imports app/, ui/, ipc/, state/, @shared, packages and other features.',
    severity: 'error',
    from: { path: `${R}features/[^/]+/` },
    // resources/: the app's own icons (the About tab shows one).
    to: { couldNotResolve: false, pathNot: [`${R}(features|app|ui|ipc|state)/`, '^src/shared/', 'node_modules', '^resources/icons/'] },
  },
  {
    name: 'feature-imports-other-features-by-index',
    comment: "Another feature's files are its own: import what its index.ts exports.",
    severity: 'error',
    from: { path: `${R}features/([^/]+)/` },
    to: { path: `${R}features/[^/]+/`, pathNot: [`${R}features/$1/`, `${R}features/[^/]+/index\\.tsx?$`] },
  },
  {
    name: 'shell-knows-no-feature',
    comment: 'app/, ui/, state/ and ipc/ do not import features (features register through app/contributions).',
    severity: 'error',
    from: { path: `${R}(app|ui|ipc|state)/` },
    to: { path: `${R}features/` },
  },
  {
    name: 'only-main-opens-the-connection',
    comment: 'app/startup.ts connects when it is imported: only the entry point may import it (a test importing it would connect).',
    severity: 'error',
    from: { pathNot: `${R}main\\.tsx$` },
    to: { path: `${R}app/startup\\.ts$` },
  },
  {
    name: 'ui-below-the-shell',
    comment: 'ui/ holds generic components: one that needs the shell’s services (api, theme, typing pause) belongs in app/.',
    severity: 'error',
    from: { path: `${R}ui/` },
    to: { path: `${R}app/` },
  },
  {
    name: 'state-and-ipc-below-the-shell',
    severity: 'error',
    from: { path: `${R}(ipc|state)/` },
    to: { path: `${R}(app|ui)/` },
  },
];

/** The part a renderer file belongs to: its feature, app, ui, ipc or state (null: the composition roots). */
export const rendererPartOf = (file: string): string | null => /^src\/renderer\/src\/(features\/[^/]+|app|ui|ipc|state)\//.exec(file)?.[1] ?? null;


/** No import cycle between files, type imports included. */
export const NO_FILE_CYCLE: IForbiddenRuleType = { name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } };

/**
 * Inside core/acp, its folders in one direction (a value import only downwards; a type may name an upper folder's
 * class): the wire and the process (connection) ← one agent process (runtimes) ← watching and restarting them, and
 * their pool (supervisor) ← sessions ← the agents' requests (agents).
 */
export const ACP_LAYERS = ['connection', 'runtimes', 'supervisor', 'session', 'agents'] as const;

export function acpLayerRules(): IForbiddenRuleType[] {
  return ACP_LAYERS.slice(0, -1).map((layer, i) => ({
    name: `acp-${layer}-below-${ACP_LAYERS.slice(i + 1).join('-')}`,
    comment: `core/acp/${layer} imports no value of ${ACP_LAYERS.slice(i + 1).join(', ')}`,
    severity: 'error',
    from: { path: `^src/main/core/acp/${layer}/` },
    to: { path: `^src/main/core/acp/(${ACP_LAYERS.slice(i + 1).join('|')})/`, dependencyTypesNot: ['type-only'] },
  }));
}
