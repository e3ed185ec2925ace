import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';
import { allowHostSchema, containerReposSettingSchema, imageRefSchema } from './containers';
import { importSourceIdSchema, importTargetSchema } from './history-import';
import { sshTargetSchema } from './hosts';
import { mcpServerSettingSchema } from './mcp';
import { DEFAULT_REGISTRY_URL } from './registry';
import { globalLimitsSchema, priceTableSchema } from './tasks';
import { repoWorktreeSettingSchema } from './worktrees';

/**
 * Settings: one typed registry of the app's preferences. Each key has its schema, default, description,
 * scope and the Settings tab section it shows in. The main process stores them (JSON, one row per key),
 * validates every write against the key's schema and size cap, and falls back to the default (with a
 * notice) for a stored value that no longer fits. Services and windows hear every change (settings.changed).
 */

export type SettingScope = 'app' | 'agent';
/** Sections of the Settings tab; null: kept by the app itself, not shown (layout, recent folders). */
export type SettingSection = 'general' | 'agents' | 'hosts' | 'permissions' | 'mcp' | 'notifications' | 'supervision' | 'history' | 'checkpoints' | 'worktrees' | 'containers' | 'registry' | 'usage' | 'keyboard';

export interface SettingDef<S extends z.ZodType = z.ZodType> {
  schema: S;
  default: z.output<S>;
  /** Short label for the Settings tab. */
  label: string;
  description: string;
  /** app: one value; agent: the value is a record of agent id → value (see perAgent). */
  scope: SettingScope;
  section: SettingSection | null;
  /** The change needs a restart of what this says (otherwise it applies at once). */
  restart?: string;
  /** Largest JSON form of a value, in characters (default SETTING_VALUE_MAX_CHARS). */
  maxChars?: number;
  /** A number is shown and typed in this unit: the stored value is `factor` times what is shown (bytes shown as GB). */
  unit?: { name: string; factor: number };
  /** Shown in an empty text field (what an empty value stands for). */
  placeholder?: string;
}

/** Default cap on the JSON form of a stored value. */
export const SETTING_VALUE_MAX_CHARS = 64 * 1024;

/** An agent's command, args and environment on one SSH host, where they differ from its own. */
export const agentOnHostSchema = z
  .object({
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(100_000)).max(1000).optional(),
    env: z.record(z.string().min(1).max(500).regex(/^[^=\0]+$/, 'not a valid environment variable name'), z.string().max(100_000)).optional(),
  })
  .strict();
export type AgentOnHost = z.infer<typeof agentOnHostSchema>;

const def = <S extends z.ZodType>(d: SettingDef<S>): SettingDef<S> => d;
const count = (max: number) => z.number().int().min(0).max(max);
const fontSize = z.number().int().min(8).max(40);

// ───────────────────────────── value schemas ─────────────────────────────

/** The MCP servers (`mcp.servers`): their schema lives with the MCP contract. */
export { MCP_SERVERS_SETTING, mcpServerSettingSchema, type McpServerSetting } from './mcp';

/** The workspace layout the renderer restores at start: panes with the tabs their kinds agree to reopen. */
export const MAX_SAVED_PANES = 4;
/** A node of the saved pane layout: a pane (its index in `panes`), or a split of 2+ nodes with their shares. */
export type SavedLayoutNode = { pane: number } | { axis: 'row' | 'column'; sizes: number[]; children: SavedLayoutNode[] };
export const savedLayoutNodeSchema: z.ZodType<SavedLayoutNode> = z.lazy(() =>
  z.union([
    z.object({ pane: z.number().int().min(0).max(MAX_SAVED_PANES - 1) }),
    z.object({
      axis: z.enum(['row', 'column']),
      sizes: z.array(z.number().min(0).max(1)).max(MAX_SAVED_PANES),
      children: z.array(savedLayoutNodeSchema).min(2).max(MAX_SAVED_PANES),
    }),
  ]),
);
export const savedLayoutSchema = z.object({
  /** How the panes were arranged: `tree` since splits nest; before, one `direction` for all (read, never written). */
  tree: savedLayoutNodeSchema.optional(),
  direction: z.enum(['row', 'column', 'grid']).optional(),
  focusedPane: z.number().int().min(0),
  panes: z
    .array(
      z.object({
        active: z.number().int().nullable(),
        tabs: z.array(z.object({ kind: z.string().max(200), title: z.string().max(2000), props: z.record(z.string(), z.json()) })).max(500),
      }),
    )
    .min(1)
    .max(MAX_SAVED_PANES),
});
export type SavedLayout = z.infer<typeof savedLayoutSchema>;

/**
 * A key combination as the Keyboard settings write it: modifiers then one key, joined by '+'
 * ('Mod+Shift+T', 'Ctrl+PageDown', 'Alt+\\'). Mod is Cmd on macOS, Ctrl elsewhere.
 */
export const keyComboSchema = z
  .string()
  .max(60)
  .regex(/^(?:(?:Mod|Ctrl|Meta|Alt|Shift)\+)*(?:[^+\s]|[A-Za-z][A-Za-z0-9]{1,19})$/, 'a key combination such as Mod+Shift+T');
export const keyBindingSchema = z.object({
  keys: keyComboSchema,
  /** Also fires while a terminal has the focus (where the plain Ctrl keys belong to the shell). */
  inTerminal: z.boolean(),
});
export type KeyBinding = z.infer<typeof keyBindingSchema>;
/** Shortcut changes: command id → its bindings (an empty list unbinds it); commands not listed keep their defaults. */
export const keyBindingsSchema = z.record(z.string().regex(/^[a-z][\w.-]{0,99}$/), z.array(keyBindingSchema).max(4));

const registryUrlSchema = z
  .string()
  .max(8192)
  .refine((u) => u.trim() === '' || /^(https?|file):/i.test(u.trim()), 'the registry URL must be http(s) or file:');

export const themeSchema = z.enum(['system', 'light', 'dark']);
export type ThemeSetting = z.infer<typeof themeSchema>;

const MB = 1024 * 1024;
const GB = 1024 * MB;

// ───────────────────────────── the registry ─────────────────────────────

export const SETTINGS = {
  // General
  'appearance.theme': def({
    schema: themeSchema,
    default: 'system',
    label: 'Theme',
    description: 'Colors of the whole app: the thread, editors and terminals. System follows the OS.',
    scope: 'app',
    section: 'general',
  }),
  'appearance.threadFontSize': def({ schema: fontSize, default: 13, label: 'Thread font size', description: 'Text size of the conversation, in pixels.', scope: 'app', section: 'general' }),
  'appearance.editorFontSize': def({ schema: fontSize, default: 13, label: 'Editor font size', description: 'Text size of file views and diffs (Monaco), in pixels.', scope: 'app', section: 'general' }),
  'appearance.terminalFontSize': def({ schema: fontSize, default: 13, label: 'Terminal font size', description: 'Text size of shells and agent terminals, in pixels.', scope: 'app', section: 'general' }),

  // Agents
  'agents.defaultAgent': def({
    schema: z.string().max(200),
    default: '',
    label: 'Default agent',
    description: 'The agent chosen first when you start a new session (empty: the first in the list).',
    scope: 'app',
    section: 'agents',
  }),
  'agents.onHost': def({
    schema: z.record(z.string().max(200), z.record(z.string().max(400), agentOnHostSchema)),
    default: {},
    label: 'Agents on SSH hosts',
    description:
      'How an agent starts on a given SSH host when it differs from here (another path, other arguments or environment): a record of agent id → host id ("ssh:devbox") → { command, args, env }. Unset parts are the agent\'s own.',
    scope: 'app',
    section: 'agents',
  }),
  'agents.processPerFolder': def({
    schema: z.union([z.boolean(), z.record(z.string().max(200), z.boolean())]),
    default: true,
    label: 'One agent process per working folder',
    description:
      'Start a separate process of an agent for each folder its sessions work in (agents that confine their tools to the folder they started in need this), as other clients do. Off: one process serves all folders. Per agent: a record of agent id → on/off. An agent with its own working folder always runs one process.',
    scope: 'app',
    section: 'agents',
  }),

  // Tasks (issue 41)
  'delegation.agents': def({
    schema: z.array(z.string().max(200)).max(500),
    default: [],
    label: 'Agents that can delegate',
    description:
      "The agents whose new sessions get Switchboard's delegation MCP server: its tools let the agent start sessions with other agents (in this folder or a new worktree), read what they did, steer and cancel them. Off for every agent until you add it here, since it lets an agent start other agents and spend; the new-session form can turn it on or off for one session.",
    scope: 'app',
    section: 'agents',
  }),
  'delegation.descriptions': def({
    schema: z.record(z.string().max(200), z.string().max(1000)),
    default: {},
    label: 'What each agent is good at',
    description: "Your description of each agent (agent id → text), which the delegation tools' list_agents gives the agent that delegates.",
    scope: 'app',
    section: 'agents',
  }),
  'delegation.maxDepth': def({
    schema: z.number().int().min(1).max(5),
    default: 2,
    label: 'Delegation depth',
    description: 'How many levels deep delegated sessions may start others (1: a session you started may delegate, its children may not).',
    scope: 'app',
    section: 'agents',
  }),
  'delegation.maxChildren': def({
    schema: z.number().int().min(1).max(32),
    default: 4,
    label: 'Sessions one session may delegate to',
    description: 'How many sessions one session may start through the delegation tools.',
    scope: 'app',
    section: 'agents',
  }),
  'tasks.concurrency': def({
    schema: z.number().int().min(1).max(16),
    default: 2,
    label: 'Tasks running at once',
    description: 'How many queued tasks run side by side; the next one starts when one ends or pauses.',
    scope: 'app',
    section: 'usage',
  }),
  'tasks.dailyLimits': def({
    schema: globalLimitsSchema,
    default: {},
    label: 'Daily limits for all agents',
    description: 'Tokens and money all guarded runs may spend per day together; a run that crosses one is paused and asks (Settings → Usage).',
    scope: 'app',
    section: null,
  }),
  'tasks.prices': def({
    schema: priceTableSchema.nullable(),
    default: null,
    label: 'Prices per model',
    description: 'USD per million tokens, for agents that report tokens but no cost. Empty: the dated defaults.',
    scope: 'app',
    section: null,
  }),

  // MCP servers
  'mcp.servers': def({
    schema: z.array(mcpServerSettingSchema).max(200),
    default: [],
    label: 'MCP servers',
    description: 'MCP servers offered to every new session (http and sse only to agents that support them).',
    scope: 'app',
    section: 'mcp',
    maxChars: 512 * 1024,
  }),

  // Hosts (Settings → Hosts edits them; aliases of ~/.ssh/config are read, never stored)
  'hosts.added': def({
    schema: z.array(sshTargetSchema).max(200),
    default: [],
    label: 'SSH hosts added',
    description: 'user@host[:port] targets added in Settings → Hosts.',
    scope: 'app',
    section: null,
  }),

  // Notifications
  'notifications.turnEnd': def({ schema: z.boolean(), default: true, label: 'When an agent finishes its turn', description: 'A desktop notification while Switchboard is not focused.', scope: 'app', section: 'notifications' }),
  'notifications.permission': def({ schema: z.boolean(), default: true, label: 'When an agent asks for permission or for input', description: 'A desktop notification while Switchboard is not focused.', scope: 'app', section: 'notifications' }),
  'notifications.taskPaused': def({ schema: z.boolean(), default: true, label: 'When a task is paused by its spending limit', description: 'A desktop notification while Switchboard is not focused: what the run spent, and Continue or Stop waits in the Inbox.', scope: 'app', section: 'notifications' }),
  'notifications.taskNeedsYou': def({ schema: z.boolean(), default: true, label: 'When a task waits for you', description: 'A desktop notification while Switchboard is not focused: a run asked something its policy may not answer.', scope: 'app', section: 'notifications' }),
  'notifications.taskFinished': def({ schema: z.boolean(), default: true, label: 'When a task finishes', description: 'A desktop notification while Switchboard is not focused: the run is in the Inbox.', scope: 'app', section: 'notifications' }),

  // Supervision (applies at once, to running agents too)
  'agents.autoRestart': def({
    schema: z.boolean(),
    default: true,
    label: 'Restart crashed agents',
    description: 'Restart an agent that crashes while it has open sessions, and bring the sessions back.',
    scope: 'app',
    section: 'supervision',
  }),
  'agents.idleStopMinutes': def({ schema: z.number().min(0).max(24 * 60), default: 10, label: 'Stop an agent with no open session after (min)', description: '0: never.', scope: 'app', section: 'supervision' }),
  'agents.sleepIdleMinutes': def({
    schema: z.number().min(0).max(7 * 24 * 60),
    default: 15,
    label: 'Stop an agent whose sessions are all idle after (min)',
    description:
      'Gives its memory back; its sessions stay open and come back (resumed or loaded) on the next prompt or when their tab is looked at. Agents that can neither resume nor load sessions are never stopped this way. 0: never.',
    scope: 'app',
    section: 'supervision',
  }),
  'agents.memoryBudgetMb': def({
    schema: z.number().int().min(0).max(16 * 1024 * 1024),
    default: 0,
    label: 'Memory budget for all agents (MB)',
    description: 'When the agents together take more, the least recently used idle agents are stopped first, as above. 0: no budget.',
    scope: 'app',
    section: 'supervision',
  }),
  'agents.requestTimeoutSeconds': def({
    schema: z.number().min(0).max(24 * 3600),
    default: 60,
    label: 'A request the agent leaves unanswered (writing nothing) fails after (s)',
    description: '0: never. Time the agent waits on Switchboard (a permission, a terminal) or runs a tool call does not count.',
    scope: 'app',
    section: 'supervision',
  }),
  'agents.restartDelaySeconds': def({ schema: z.number().min(0).max(3600), default: 1, label: 'First automatic restart after (s)', description: 'Doubles on each crash, at most 30 s.', scope: 'app', section: 'supervision' }),
  'agents.maxRestarts': def({ schema: count(100), default: 5, label: 'At most this many automatic restarts', description: 'Within the window below; then the agent is left stopped.', scope: 'app', section: 'supervision' }),
  'agents.restartWindowMinutes': def({ schema: z.number().min(0).max(24 * 60), default: 5, label: '…within (min)', description: 'Then the agent is left stopped.', scope: 'app', section: 'supervision' }),
  'agents.floodPerSecond': def({ schema: count(10_000_000), default: 5000, label: 'Flood control: an agent writing more messages a second than', description: '0: never throttle.', scope: 'app', section: 'supervision' }),
  'agents.floodSeconds': def({ schema: count(3600), default: 5, label: '…for this many seconds', description: 'In a row.', scope: 'app', section: 'supervision' }),
  'agents.floodThrottlePerSecond': def({ schema: count(10_000_000), default: 1000, label: '…is then read at (messages a second)', description: 'Until it calms down; nothing is dropped.', scope: 'app', section: 'supervision' }),

  // Worktree sessions
  'worktrees.folder': def({
    schema: z.string().max(4096).refine((p) => p === '' || p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path'),
    default: '',
    label: 'Worktrees folder',
    description:
      "Where new worktree sessions' worktrees go, one folder per repository. Empty: beside each repository (<repo>.worktrees/). Never inside a repository or the data folder.",
    scope: 'app',
    section: 'worktrees',
    placeholder: 'beside each repository',
  }),
  'worktrees.repos': def({
    schema: z.record(absolutePathSchema, repoWorktreeSettingSchema).refine((r) => Object.keys(r).length <= 500, 'at most 500 repositories'),
    default: {},
    label: 'Worktree settings per repository',
    description:
      'Per repository (its main checkout): start new sessions in a new worktree, and a setup command run in each new worktree, with its timeout. Edited here (Settings → Worktrees) and in the new-session form.',
    scope: 'app',
    section: 'worktrees',
  }),

  // Containers (sessions in containers)
  'containers.engine': def({
    schema: z.enum(['podman', 'docker']),
    default: 'podman',
    label: 'Preferred engine',
    description: 'Used when a host has both Podman and Docker; otherwise the one it has.',
    scope: 'app',
    section: 'containers',
  }),
  'containers.defaultImage': def({
    schema: z.union([z.literal(''), imageRefSchema]),
    default: '',
    label: 'Default image',
    description: 'Offered for a folder without a devcontainer.json (a repository can have its own, set in the new-session form). It needs node 20+ for npm agents.',
    scope: 'app',
    section: 'containers',
    placeholder: 'mcr.microsoft.com/devcontainers/javascript-node:20',
  }),
  'containers.network': def({
    schema: z.enum(['none', 'api', 'full']),
    default: 'none',
    label: 'Network of a new container session',
    description: 'none: nothing outside the container; api: only the agent\'s API (its hosts, and those below), through a proxy of Switchboard\'s; full: what this machine reaches.',
    scope: 'app',
    section: 'containers',
  }),
  'containers.allowHosts': def({
    schema: z.array(allowHostSchema).max(50),
    default: [],
    label: 'Also allowed with "only the agent\'s API"',
    description: 'Hosts a container with the network "only the agent\'s API" may reach besides the agent\'s own API (one a line: name, name:port or *.suffix; a name alone is port 443).',
    scope: 'app',
    section: 'containers',
  }),
  'containers.memoryMiB': def({ schema: z.number().int().min(64).max(1024 * 1024), default: 2048, label: 'Memory limit of a container (MiB)', description: 'No swap beyond it; five sessions at the default keep a 16 GB laptop usable.', scope: 'app', section: 'containers' }),
  'containers.cpus': def({ schema: z.number().min(0.1).max(512), default: 2, label: 'CPUs of a container', description: 'A share of the machine\'s CPUs (1.5: one and a half).', scope: 'app', section: 'containers' }),
  'containers.idleStopMinutes': def({ schema: z.number().int().min(0).max(7 * 24 * 60), default: 30, label: 'Stop a session\'s container after it is idle for (min)', description: 'It starts again on the next prompt. 0: never.', scope: 'app', section: 'containers' }),
  'containers.repos': def({
    schema: containerReposSettingSchema,
    default: {},
    label: 'Containers per repository',
    description: 'Per repository: the image of its container sessions, and the settings of its devcontainer.json that lower the fence which you allowed.',
    scope: 'app',
    section: null,
  }),
  'containers.fencedAutoApprove': def({
    schema: z.boolean(),
    default: false,
    label: 'In a fenced container, allow every file edit and command without asking',
    description: 'Only for sessions whose container has network none (or only the API): edits and commands inside are approved; anything else still asks.',
    scope: 'app',
    section: 'containers',
  }),

  // History
  'history.backupsKept': def({
    schema: z.number().int().min(1).max(100),
    default: 5,
    label: 'Backups kept',
    description: 'Daily copies of the store kept in the backups folder; the oldest go first (at the next backup).',
    scope: 'app',
    section: 'history',
  }),
  'history.importKeep': def({
    // Store keys (importTargetKey): an agent's id for this machine's store, `<agent>@<host id>` for a host's.
    schema: z.array(importTargetSchema).max(200),
    default: [],
    label: "Keep importing the agents' own sessions",
    description: 'For these agents, sessions they store outside Switchboard (in a terminal beside it) appear in History as they are written (History → Import).',
    scope: 'app',
    section: null,
  }),
  'history.importAgents': def({
    // Tool → the id of the agent the user chose to continue its imported sessions with (History → Continue).
    schema: z.partialRecord(importSourceIdSchema, z.string().min(1).max(500)),
    default: {},
    label: 'Agent that continues the sessions imported from each tool',
    description: 'Chosen in a transcript of an imported session (Continue with…); else the agent whose registry entry or command names the tool.',
    scope: 'app',
    section: null,
  }),

  // Checkpoints (read by the checkpoint service when it snapshots and prunes)
  'checkpoints.retentionDays': def({
    schema: z.number().int().min(1).max(3650),
    default: 30,
    label: 'Keep checkpoints for (days)',
    description: 'Older checkpoints are pruned (a folder keeps at least its latest).',
    scope: 'app',
    section: 'checkpoints',
  }),
  'checkpoints.maxBytesPerFolder': def({
    schema: z.number().int().min(10 * MB).max(1024 * GB),
    default: 2 * GB,
    label: 'At most per folder (GB)',
    description: 'Past this, the oldest checkpoints of the folder are pruned first.',
    scope: 'app',
    section: 'checkpoints',
    unit: { name: 'GB', factor: GB },
  }),
  'checkpoints.maxFileBytes': def({
    schema: z.number().int().min(1024).max(GB),
    default: 5 * MB,
    label: 'Files larger than this are recorded as “too large to keep” (MB)',
    description: 'Their change is listed, without their content.',
    scope: 'app',
    section: 'checkpoints',
    unit: { name: 'MB', factor: MB },
  }),
  'checkpoints.excludes': def({
    schema: z.array(z.string().min(1).max(500)).max(500),
    default: ['node_modules/', '.venv/', 'venv/', '__pycache__/', 'target/', 'dist/', 'build/', '.next/', '.gradle/', '.cache/', '.DS_Store'],
    label: 'Never captured',
    description: 'gitignore patterns, one a line; each folder’s own .gitignore applies too.',
    scope: 'app',
    section: 'checkpoints',
  }),

  // Registry
  'registry.url': def({
    schema: registryUrlSchema,
    default: '',
    label: 'Registry source',
    description: 'An http(s) or file: URL of a registry.json. Empty: the ACP Registry’s CDN.',
    scope: 'app',
    section: 'registry',
    placeholder: DEFAULT_REGISTRY_URL,
  }),

  'keyboard.bindings': def({
    schema: keyBindingsSchema,
    default: {},
    label: 'Shortcuts',
    description: 'Shortcuts you changed; every other command keeps its default keys.',
    scope: 'app',
    section: 'keyboard',
  }),

  // Kept by the app itself
  'workspace.layout': def({
    schema: savedLayoutSchema.nullable(),
    default: null,
    label: 'Workspace layout',
    description: 'Panes and tabs reopened at start.',
    scope: 'app',
    section: null,
    maxChars: 1024 * 1024,
  }),
  'sessions.recentFolders': def({
    schema: z.array(absolutePathSchema).max(50),
    default: [],
    label: 'Recent folders',
    description: 'Folders sessions were started in, most recent first.',
    scope: 'app',
    section: null,
  }),
} as const;

export type Settings = typeof SETTINGS;
export type SettingKey = keyof Settings;
export type SettingValue<K extends SettingKey> = z.output<Settings[K]['schema']>;
/** What may be written (defaults of inner fields not yet applied). */
export type SettingInput<K extends SettingKey> = z.input<Settings[K]['schema']>;
export type SettingValues = { [K in SettingKey]: SettingValue<K> };
/** A key with its value: the discriminated union over keys. */
export type SettingEntry = { [K in SettingKey]: { key: K; value: SettingValue<K> } }[SettingKey];
export type SettingEntryInput = { [K in SettingKey]: { key: K; value: SettingInput<K> } }[SettingKey];

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
export const isSettingKey = (key: unknown): key is SettingKey => typeof key === 'string' && Object.prototype.hasOwnProperty.call(SETTINGS, key);

/** The definition of a key (typed loosely, for code that walks every key). */
export const settingDef = (key: SettingKey): SettingDef => SETTINGS[key] as SettingDef;

export const settingKeySchema = z.enum(SETTING_KEYS as [SettingKey, ...SettingKey[]]);

const entrySchemas = SETTING_KEYS.map((key) => z.object({ key: z.literal(key), value: settingDef(key).schema }).strict());
/** `{ key, value }` with the value checked against the key's own schema. */
export const settingEntrySchema = z.discriminatedUnion('key', entrySchemas as unknown as [z.ZodObject, ...z.ZodObject[]]) as unknown as z.ZodType<
  SettingEntry,
  SettingEntryInput
>;

const valuesShape = Object.fromEntries(SETTING_KEYS.map((k) => [k, settingDef(k).schema])) as { [K in SettingKey]: Settings[K]['schema'] };
export const settingValuesSchema = z.object(valuesShape);

/** The value stored for `key`, or its default (with the reason) when it is absent or does not fit the schema. */
export function parseSetting<K extends SettingKey>(key: K, stored: unknown): { value: SettingValue<K>; problem: string | null } {
  const d = SETTINGS[key] as unknown as SettingDef<z.ZodType<SettingValue<K>>>;
  if (stored === undefined || stored === null) {
    if (stored === null && d.schema.safeParse(null).success) return { value: null as SettingValue<K>, problem: null };
    return { value: d.default, problem: null };
  }
  const parsed = d.schema.safeParse(stored);
  if (parsed.success) return { value: parsed.data, problem: null };
  const issue = parsed.error.issues[0];
  return { value: d.default, problem: `${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'invalid'}` };
}

/** Every key at its default. */
export const defaultSettings = (): SettingValues =>
  Object.fromEntries(SETTING_KEYS.map((k) => [k, structuredClone(settingDef(k).default)])) as SettingValues;

/** The value of an agent-scoped setting for one agent (the record's entry, else the key's default). */
export const perAgent = <V>(record: Record<string, V> | undefined, agentId: string, fallback: V): V =>
  record && Object.prototype.hasOwnProperty.call(record, agentId) ? record[agentId]! : fallback;

/** A stored value the app could not use: the key fell back to its default. */
export const settingProblemSchema = z.object({ key: z.string(), message: z.string() });
export type SettingProblem = z.infer<typeof settingProblemSchema>;

export const settingsRequests = {
  /** One key: its value (or default), and whether a value is stored. */
  'settings.get': request(z.object({ key: settingKeySchema }).strict(), z.object({ entry: settingEntrySchema, stored: z.boolean() })),
  /** Every key, and the stored values that fell back to their defaults (show them to the user). */
  'settings.getAll': request(z.object({}).strict(), z.object({ values: settingValuesSchema, problems: z.array(settingProblemSchema) })),
  /** Validated against the key's schema and size cap; settings.changed follows. */
  'settings.set': request(settingEntrySchema, z.object({})),
  /** Back to the default (the stored value is removed); settings.changed follows. */
  'settings.reset': request(z.object({ key: settingKeySchema }).strict(), z.object({})),
} as const;

export const settingsEvents = {
  /** A key changed (set or reset), with its value now in force. */
  'settings.changed': event(settingEntrySchema),
} as const;
