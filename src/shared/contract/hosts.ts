import { z } from 'zod';
import { event, request } from './define';

/**
 * Hosts: where a session's agent, terminals and files live. 'local' is this machine; an SSH host is reached
 * with the user's own OpenSSH (their ~/.ssh/config, ssh-agent and known_hosts). Its id is `ssh:` and the
 * target ssh is given: an alias of ~/.ssh/config, or `user@host[:port]` the user added.
 */

export const LOCAL_HOST_ID = 'local';
/** Settings key `hosts.added`: the `user@host[:port]` targets the user added (aliases come from ~/.ssh/config). */
export const ADDED_HOSTS_SETTING = 'hosts.added';

/** A name ssh reads as a host, never as an option: no leading '-', no spaces, no quoting, no wildcard. */
const ALIAS_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,252}$/;
const USER_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
const HOSTNAME_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*|\[[0-9A-Fa-f:.]{2,45}\])$/;

/** `user@host[:port]`, parsed; null when it is not one (the reason is `targetProblem`). */
export interface SshAddress {
  user: string;
  hostname: string;
  port: number | null;
}

export function parseSshAddress(input: string): SshAddress | null {
  const m = /^([^@\s]+)@([^\s@]+?)(?::(\d{1,5}))?$/.exec(input.trim());
  if (!m) return null;
  const [, user = '', hostname = '', portText] = m;
  if (!USER_RE.test(user) || !HOSTNAME_RE.test(hostname)) return null;
  const port = portText === undefined ? null : Number(portText);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { user, hostname, port };
}

/** The canonical text of an address (`user@host` when the port is ssh's default or absent). */
export const formatSshAddress = (a: SshAddress): string => `${a.user}@${a.hostname}${a.port !== null && a.port !== 22 ? `:${a.port}` : ''}`;

/** Why `target` cannot be an SSH host, as a sentence; null when it can (an alias or `user@host[:port]`). */
export function targetProblem(target: string): string | null {
  if (target.includes('@')) {
    return parseSshAddress(target) ? null : `"${target.slice(0, 100)}" is not user@host or user@host:port (a port from 1 to 65535)`;
  }
  if (!ALIAS_RE.test(target)) return `"${target.slice(0, 100)}" is not a host name: letters, digits, '.', '_' and '-' only, not starting with '-'`;
  return null;
}

export const sshHostId = (target: string): string => `ssh:${target}`;
/** The ssh target of a host id (null for 'local' or anything else). */
export function sshTargetOf(hostId: string): string | null {
  if (!hostId.startsWith('ssh:')) return null;
  const target = hostId.slice(4);
  return targetProblem(target) === null ? target : null;
}

/**
 * Host ids are `kind:rest` (as VS Code's remote authorities): one row per kind below says how its rest is
 * read, how it is named, and what it can do. A new kind adds a row; the exhaustive switches over `HostKind`
 * (`never`) list what else it touches.
 *   - `local`: this machine;
 *   - `ssh:<alias | user@host[:port]>`: an SSH host;
 *   - `container:<key>@<host id>`: a session's container on a host that is not a container itself
 *     (`container:5d1c…@local`, `container:5d1c…@ssh:devbox`); `<key>` is the id of the session the
 *     container was made for (its label), so the container is found again after a restart.
 */
export const HOST_KINDS = ['local', 'ssh', 'container'] as const;
export type HostKind = (typeof HOST_KINDS)[number];

export type HostAddress =
  | { kind: 'local' }
  | { kind: 'ssh'; target: string }
  | { kind: 'container'; key: string; on: string };

/** What a kind of host can do, asked where code used to compare with 'local'. */
export interface HostKindFacts {
  /** Its processes run on this machine, with this machine's login environment and home. */
  sharesThisMachine: boolean;
  /** Its files are those of another host (the one it runs on): checkpoints and file reads go there. */
  filesOnHostBelow: boolean;
  /** Its agents outlive a Switchboard that stops (a helper keeps them and what they write, to be taken back). */
  agentsOutliveSwitchboard: boolean;
}

const CONTAINER_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export const HOST_KIND_TABLE: { readonly [K in HostKind]: HostKindFacts & { parse(rest: string): HostAddress | null } } = {
  local: { sharesThisMachine: true, filesOnHostBelow: false, agentsOutliveSwitchboard: false, parse: () => null },
  ssh: { sharesThisMachine: false, filesOnHostBelow: false, agentsOutliveSwitchboard: true, parse: (rest) => (targetProblem(rest) === null ? { kind: 'ssh', target: rest } : null) },
  container: {
    sharesThisMachine: false,
    filesOnHostBelow: true,
    agentsOutliveSwitchboard: false,
    parse: (rest) => {
      const at = rest.indexOf('@');
      if (at < 0) return null;
      const key = rest.slice(0, at);
      const on = parseHostId(rest.slice(at + 1));
      // A container runs on a machine (this one, an SSH host), never inside another container.
      if (!CONTAINER_KEY_RE.test(key) || !on || on.kind === 'container') return null;
      return { kind: 'container', key, on: rest.slice(at + 1) };
    },
  },
};

/** A host id read by its kind's row; null when it is none of them. */
export function parseHostId(id: string): HostAddress | null {
  if (id === LOCAL_HOST_ID) return { kind: 'local' };
  const colon = id.indexOf(':');
  if (colon < 0 || id.length > 400) return null;
  const kind = id.slice(0, colon);
  if (kind === 'local' || !(HOST_KINDS as readonly string[]).includes(kind)) return null;
  return HOST_KIND_TABLE[kind as HostKind].parse(id.slice(colon + 1));
}

export const hostKindOf = (id: string): HostKind | null => parseHostId(id)?.kind ?? null;
export const containerHostId = (key: string, on: string): string => `container:${key}@${on}`;

/** The facts of a host id's kind (an unknown id is treated as a machine that is not this one). */
export function hostFacts(id: string): HostKindFacts {
  const kind = hostKindOf(id);
  return kind ? HOST_KIND_TABLE[kind] : HOST_KIND_TABLE.ssh;
}

/** Whether the host's processes run on this machine (a question about the kind, not the id 'local'). */
export const sharesThisMachine = (id: string): boolean => hostFacts(id).sharesThisMachine;

/** The host whose files a host works on: a container's host (its bind mount), else the host itself. */
export function filesHostId(id: string): string {
  const a = parseHostId(id);
  return a?.kind === 'container' ? a.on : id;
}

/** How a host is named to the user: "this machine", the alias or user@host[:port], "a container on …". */
export function hostLabel(hostId: string): string {
  const a = parseHostId(hostId);
  if (!a) return hostId;
  switch (a.kind) {
    case 'local':
      return 'this machine';
    case 'ssh':
      return a.target;
    case 'container':
      return `a container on ${hostLabel(a.on)}`;
    default:
      return assertNever(a);
  }
}

function assertNever(x: never): never {
  throw new Error(`unknown host kind: ${JSON.stringify(x)}`);
}

export const hostIdSchema = z
  .string()
  .min(1)
  .max(400)
  .refine((id) => parseHostId(id) !== null, 'must be "local", "ssh:" and an alias or user@host[:port], or "container:<key>@<host id>"');

/** A host a container can run on (this machine or an SSH host). */
export const machineHostIdSchema = hostIdSchema.refine((id) => hostKindOf(id) !== 'container', 'must be "local" or an SSH host');

export const sshTargetSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .superRefine((t, ctx) => {
    const problem = targetProblem(t);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** What a connection is doing; the sidebar shows it ('local' is always connected). */
export const hostStateSchema = z.enum(['disconnected', 'connecting', 'connected', 'reconnecting']);
export type HostState = z.infer<typeof hostStateSchema>;

/** The steps of connecting, in order. */
export const connectStepSchema = z.enum(['resolving', 'authenticating', 'preparing']);
export type ConnectStep = z.infer<typeof connectStepSchema>;

export const hostInfoSchema = z.object({
  id: z.string(),
  kind: z.enum(HOST_KINDS),
  /** What the user sees: "This machine", the alias, or user@host:port. */
  label: z.string(),
  /** Where it comes from: this machine, a Host line of ~/.ssh/config, or added by the user (removable). */
  source: z.enum(['local', 'config', 'added']),
  /** What ssh will use (from `ssh -G`), when known. */
  resolved: z.object({ user: z.string(), hostname: z.string(), port: z.number().int(), proxyJump: z.string().nullable() }).nullable(),
  state: hostStateSchema,
  /** Why the last connect or the connection failed, as a sentence. */
  error: z.string().nullable(),
});
export type HostInfo = z.infer<typeof hostInfoSchema>;

/** Why connecting failed. Each has a sentence for the user; an unknown key waits for the user to accept it. */
export const connectFailureSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('unreachable'), message: z.string() }),
  z.object({ kind: z.literal('auth-refused'), message: z.string() }),
  /** Accept by connecting again with `acceptHostKey` set to this fingerprint. */
  z.object({ kind: z.literal('host-key-unknown'), message: z.string(), fingerprint: z.string(), keyType: z.string() }),
  /** Refused; `warning` is OpenSSH's own text. */
  z.object({ kind: z.literal('host-key-changed'), message: z.string(), warning: z.string() }),
  z.object({ kind: z.literal('node-missing'), message: z.string() }),
  z.object({ kind: z.literal('git-missing'), message: z.string() }),
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
export type ConnectFailure = z.infer<typeof connectFailureSchema>;
export type ConnectFailureKind = ConnectFailure['kind'];

const hostIdParams = z.object({ hostId: hostIdSchema }).strict();
const pathText = z.string().min(1).max(4096);

export const hostRequests = {
  /** This machine, the aliases of ~/.ssh/config and the hosts the user added, with their state. */
  'hosts.list': request(z.object({}).strict(), z.object({ hosts: z.array(hostInfoSchema) })),
  /** Adds `user@host[:port]` (stored in the `hosts.added` setting). An alias needs no adding. */
  'hosts.add': request(z.object({ target: sshTargetSchema }).strict(), hostInfoSchema),
  /** Removes an added host (disconnecting it); aliases stay as long as ~/.ssh/config has them. */
  'hosts.remove': request(hostIdParams, z.object({})),
  /**
   * Connects (steps reported as `hosts.progress`): a failure is a value, never a hang (unreachable within 15 s).
   * `acceptHostKey`: the fingerprint the user accepted; the key is recorded in their known_hosts only if the host
   * still presents that one.
   */
  'hosts.connect': request(
    z.object({ hostId: hostIdSchema, acceptHostKey: z.string().min(1).max(200).optional() }).strict(),
    z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), host: hostInfoSchema }), z.object({ ok: z.literal(false), failure: connectFailureSchema })]),
  ),
  'hosts.disconnect': request(hostIdParams, z.object({})),
  /** Whether a folder exists on the host (an absolute path; `~/…` is the remote user's home). */
  'hosts.checkFolder': request(
    z.object({ hostId: hostIdSchema, path: pathText }).strict(),
    z.object({ ok: z.boolean(), path: z.string(), message: z.string().nullable() }),
  ),
  /** Folder names on the host that complete `prefix` (its last segment; bounded). */
  'hosts.completeFolder': request(z.object({ hostId: hostIdSchema, prefix: pathText }).strict(), z.object({ folders: z.array(z.string()) })),
} as const;

export const hostEvents = {
  /** A step of a connect in progress. */
  'hosts.progress': event(z.object({ hostId: z.string(), step: connectStepSchema })),
  /** A host's connection changed state (the sidebar and the sessions on it follow). */
  'hosts.state': event(z.object({ hostId: z.string(), state: hostStateSchema, error: z.string().nullable() })),
} as const;
