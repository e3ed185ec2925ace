import { join } from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import {
  DELEGATION_SECRET_ENV,
  DELEGATION_SERVER_NAME,
  DELEGATION_SOCKET_ENV,
  delegationTools,
  MAX_MESSAGE_CHARS,
  type DelegationTool,
} from '../../../shared/delegation';
import { filesHostId, hostKindOf, hostLabel, LOCAL_HOST_ID } from '../../../shared/contract/hosts';
import type { ContainerChoice } from '../../../shared/contract/containers';
import type { Db } from '../store/database';
import type { Host } from '../host/host';
import type { Disposable } from '../base/lifecycle';
import { DelegationChannel, DelegationRefusal } from './channel';
import { folderChanges } from '../worktrees/folder-diff';
import { delegationServerCommand, delegationServerFile } from './server-bundle';
import { revParse } from '../worktrees/repo-git';
import { SessionRelays } from './session-relays';

/** A session as delegation sees it. */
export interface DelegatedState {
  status: string;
  agentId: string;
  cwd: string;
  /** Where its agent runs (a container's id names the machine its folders are on). */
  hostId: string;
  title: string | null;
  error: string | null;
}

/** What delegation needs of the sessions: start one as another's child, prompt, cancel, read, and hear them. */
export interface DelegationSessions {
  /** A new session (delegation as its agent's switch says), linked as the child of `parentId` once the agent created it. */
  create(p: { agentId: string; hostId: string; cwd: string; parentId: string; task: string; container?: ContainerChoice }): Promise<{ id: string }>;
  prompt(id: string, text: string): Promise<unknown>;
  cancel(id: string): void;
  state(id: string): DelegatedState | null;
  lastMessage(id: string): string | null;
  onTurnEnded(listener: (turn: { sessionId: string }) => void): Disposable;
  onStatusChanged(listener: (s: { id: string; status: string }) => void): Disposable;
  agents(): Array<{ id: string; name: string }>;
}

/** A new worktree on a new branch from the folder's current branch, on the machine `machineId` (this one or an SSH host), known to Switchboard's worktrees. */
export interface DelegationWorktrees {
  create(folder: string, name: string, machineId: string): Promise<{ path: string; branch: string }>;
}

/** What a child placed in a container needs: the machine's engine, and the container the new-session form would choose. */
export interface DelegationContainers {
  /** Why no container can be made on the machine (no engine…), in a sentence; null when one can. */
  problem(machineId: string): Promise<string | null>;
  /**
   * The container of a child of `parentId` in `folder`: the parent's own (its source and its fence) when the parent
   * runs in one, else the new-session form's choice (the folder's devcontainer.json, else the default image; the
   * fence as Settings → Containers says). Throws the sentence saying why there is none.
   */
  choice(machineId: string, folder: string, parentId: string): Promise<ContainerChoice>;
}

export interface DelegationDeps {
  db: () => Db;
  /** This machine. */
  host: Host;
  /** A host by its id (an SSH host is connected first). */
  hosts: (hostId: string) => Promise<Host>;
  /** Absent: containers are not available here. */
  containers?: DelegationContainers;
  dataDir: string;
  sessions: DelegationSessions;
  worktrees: DelegationWorktrees;
  settings: {
    agents(): string[];
    descriptions(): Record<string, string>;
    maxDepth(): number;
    maxChildren(): number;
  };
}

/** The MCP server a session gets, as ACP's session/new takes it and as "what the agent was given" lists it. */
export interface DelegationServer {
  acp: McpServer;
  given: { id: string; type: 'stdio'; name: string; command: string; args: string[]; env: Record<string, string> };
}

type StartArgs = { agent: string; task: string; where: 'folder' | 'worktree' | 'container'; wait: boolean; waitSeconds?: number };

const DEFAULT_WAIT_S = 600;
/** Statuses a session is at rest in: a wait for it ends there. */
const AT_REST = new Set(['idle', 'failed', 'closed', 'auth_required']);

const refuse = (sentence: string): never => {
  throw new DelegationRefusal(sentence);
};
const bounded = (text: string | null, max: number): string | null => (text === null || text.length <= max ? text : `${text.slice(0, max)}\n…(cut at ${max} characters)`);

/**
 * Delegation for any agent (issue 42): Switchboard's own MCP server, given to a session whose agent or session
 * switch is on, whose tools start other agents' sessions as its children and read, steer and cancel them. Each
 * session gets a secret the channel knows it by; an agent reaches only the sessions its session started, within
 * the depth and count limits. What the agent sends is checked with the tools' schemas here, whatever its server
 * process checked.
 */
export class DelegationService implements Disposable {
  readonly channel: DelegationChannel;
  /** Children being started (not in the table yet): they count against the limit already. */
  private readonly starting = new Map<string, number>();
  private readonly links: Disposable;
  /** The relays of the sessions on an SSH host or in a container. */
  private readonly relays: SessionRelays;

  constructor(private readonly deps: DelegationDeps) {
    this.channel = new DelegationChannel((sessionId, tool, args) => this.call(sessionId, tool, args));
    this.relays = new SessionRelays(deps.hosts, (line) => this.channel.answer(line));
    // A closed session's server stops working (a reopened one gets a new secret).
    this.links = deps.sessions.onStatusChanged((s) => {
      if (s.status !== 'closed') return;
      this.channel.revoke(s.id);
      this.relays.close(s.id);
    });
  }

  /** Whether a session gets the server: its own switch, else its agent's. */
  enabledFor(sessionId: string, agentId: string): boolean {
    const row = this.deps.db().prepare('SELECT delegation FROM sessions WHERE id = ?').get(sessionId) as { delegation: number | null } | undefined;
    if (row && row.delegation !== null) return row.delegation === 1;
    return this.deps.settings.agents().includes(agentId);
  }

  /**
   * The server for a session being opened (session/new, resume, load), with a fresh secret; null when delegation
   * is off for it; a reason when it is on but cannot be given.
   */
  async serverFor(sessionId: string, agentId: string, hostId: string): Promise<DelegationServer | { leftOut: string } | null> {
    if (!this.enabledFor(sessionId, agentId)) return null;
    let file: string;
    try {
      await this.channel.ready();
      file = await delegationServerFile(join(this.deps.dataDir, 'delegation'));
    } catch (e) {
      return { leftOut: `the delegation server could not be prepared: ${(e as Error).message}` };
    }
    let command: string;
    let args: string[];
    let env: Record<string, string>;
    if (hostId === LOCAL_HOST_ID) {
      ({ command, args, env } = delegationServerCommand(file));
      env = { ...env, [DELEGATION_SOCKET_ENV]: this.channel.path };
    } else {
      // The server runs where the agent does, and reaches the core through its relay there (session-relays.ts).
      try {
        const relay = await this.relays.open(sessionId, hostId, file);
        ({ command, args, env } = { command: relay.node, args: [relay.file], env: { [DELEGATION_SOCKET_ENV]: relay.socket } });
      } catch (e) {
        return { leftOut: `the delegation server could not be started on ${hostLabel(hostId)}: ${(e as Error).message}` };
      }
    }
    const all = { ...env, [DELEGATION_SECRET_ENV]: this.channel.issue(sessionId) };
    return {
      acp: { name: DELEGATION_SERVER_NAME, command, args, env: Object.entries(all).map(([name, value]) => ({ name, value })) },
      given: { id: DELEGATION_SERVER_NAME, type: 'stdio', name: DELEGATION_SERVER_NAME, command, args, env: all },
    };
  }

  // ───────────── the tools ─────────────

  private async call(sessionId: string, tool: string, raw: unknown): Promise<string> {
    if (!Object.hasOwn(delegationTools, tool)) refuse(`Refused: there is no tool "${tool.slice(0, 100)}".`);
    const parsed = delegationTools[tool as DelegationTool].args.safeParse(raw ?? {});
    if (!parsed.success) refuse(`Refused: invalid arguments for ${tool}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`);
    if (!this.deps.sessions.state(sessionId)) refuse('Refused: the session this server belongs to is not open.');
    const args = parsed.data as Record<string, unknown>;
    switch (tool as DelegationTool) {
      case 'list_agents':
        return this.listAgents();
      case 'start_session':
        return this.start(sessionId, args as StartArgs);
      case 'read_session': {
        const a = args as { sessionId: string; wait: boolean; waitSeconds?: number; diff: boolean };
        this.owned(sessionId, a.sessionId);
        if (a.wait) await this.untilAtRest(a.sessionId, a.waitSeconds, false);
        return this.read(a.sessionId, a.diff);
      }
      case 'send_followup': {
        const a = args as { sessionId: string; text: string; wait: boolean; waitSeconds?: number };
        this.owned(sessionId, a.sessionId);
        const state = this.deps.sessions.state(a.sessionId);
        if (!state || state.status === 'closed' || state.status === 'failed') refuse(`Refused: session ${a.sessionId} is ${state?.status ?? 'closed'}: it takes no more prompts.`);
        const waited = a.wait ? this.untilAtRest(a.sessionId, a.waitSeconds, true) : null;
        await this.deps.sessions.prompt(a.sessionId, a.text);
        if (!waited) return `Sent to session ${a.sessionId}.`;
        await waited;
        return this.read(a.sessionId, true);
      }
      case 'cancel_session': {
        const a = args as { sessionId: string };
        this.owned(sessionId, a.sessionId);
        this.deps.sessions.cancel(a.sessionId);
        return `Cancelled the turn of session ${a.sessionId}.`;
      }
    }
  }

  private listAgents(): string {
    const notes = this.deps.settings.descriptions();
    const agents = this.deps.sessions.agents().map((a) => ({ id: a.id, name: a.name, goodAt: notes[a.id] ?? null }));
    return JSON.stringify({ agents }, null, 2);
  }

  /** How deep a session is: 0 when the user started it, 1 for a session it delegated to… */
  depthOf(sessionId: string): number {
    const parentOf = this.deps.db().prepare('SELECT parent_id FROM delegations WHERE session_id = ?');
    let depth = 0;
    const seen = new Set<string>();
    for (let id: string | undefined = sessionId; id && !seen.has(id); depth++) {
      seen.add(id);
      id = (parentOf.get(id) as { parent_id: string } | undefined)?.parent_id;
      if (!id) return depth;
    }
    return depth;
  }

  /** The sessions this one started, oldest first. */
  childrenOf(sessionId: string): string[] {
    return (this.deps.db().prepare('SELECT session_id FROM delegations WHERE parent_id = ? ORDER BY created_at, rowid').all(sessionId) as { session_id: string }[]).map((r) => r.session_id);
  }

  private owned(parentId: string, childId: string): void {
    const row = this.deps.db().prepare('SELECT 1 FROM delegations WHERE session_id = ? AND parent_id = ?').get(childId, parentId);
    if (!row) refuse(`Refused: session ${childId} was not started by this session; an agent can read and steer only the sessions it started.`);
  }

  /** The host a session's files are on (a container's: the machine it runs on). */
  private filesHost(hostId: string): Promise<Host> {
    const id = filesHostId(hostId);
    return id === LOCAL_HOST_ID ? Promise.resolve(this.deps.host) : this.deps.hosts(id);
  }

  private async start(parentId: string, a: StartArgs): Promise<string> {
    const parent = this.deps.sessions.state(parentId)!;
    const maxDepth = this.deps.settings.maxDepth();
    const depth = this.depthOf(parentId);
    if (depth >= maxDepth) {
      refuse(`Refused: delegation goes ${maxDepth} level${maxDepth === 1 ? '' : 's'} deep at most, and this session is ${depth === 1 ? 'itself a delegated session' : `${depth} levels deep`}: do this task yourself.`);
    }
    const maxChildren = this.deps.settings.maxChildren();
    const started = this.childrenOf(parentId).length + (this.starting.get(parentId) ?? 0);
    if (started >= maxChildren) refuse(`Refused: this session has started ${started} sessions already, the most one session may start (${maxChildren}).`);
    const agents = this.deps.sessions.agents();
    const wanted = a.agent.trim().toLowerCase();
    const agent = agents.find((x) => x.id === a.agent) ?? agents.find((x) => x.name.toLowerCase() === wanted);
    if (!agent) refuse(`Refused: there is no agent "${a.agent.slice(0, 100)}"; the agents set up are: ${agents.map((x) => x.name).join(', ') || 'none'}.`);
    // The child runs where its parent's folders are: this machine or the SSH host (a container's machine). A
    // session in a container starts its children in containers behind its own fence, never outside it.
    const machineId = filesHostId(parent.hostId);
    const fenced = hostKindOf(parent.hostId) === 'container';
    const inContainer = a.where === 'container' || fenced;
    if (inContainer) {
      const problem = this.deps.containers ? await this.deps.containers.problem(machineId).catch((e: Error) => e.message) : 'sessions in containers are not available here';
      if (problem) refuse(`Refused: no container can be made on ${hostLabel(machineId)}: ${problem}`);
    }
    this.starting.set(parentId, (this.starting.get(parentId) ?? 0) + 1);
    try {
      const host = await this.filesHost(machineId);
      let cwd = parent.cwd;
      let branch: string | null = null;
      if (a.where === 'worktree') {
        const made = await this.deps.worktrees.create(parent.cwd, a.task, machineId).catch((e: Error) => refuse(`Refused: no worktree could be made: ${e.message}`));
        cwd = made.path;
        branch = made.branch;
      }
      const container = inContainer ? await this.deps.containers!.choice(machineId, cwd, parentId).catch((e: Error) => refuse(`Refused: no container can be made for it: ${e.message}`)) : undefined;
      const base = await revParse(host, cwd, 'HEAD').catch(() => null);
      const child = await this.deps.sessions.create({ agentId: agent!.id, hostId: machineId, cwd, parentId, task: a.task, ...(container ? { container } : {}) });
      this.deps
        .db()
        .prepare('INSERT INTO delegations (session_id, parent_id, worktree, branch, base_commit, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(child.id, parentId, a.where === 'worktree' ? cwd : null, branch, base, Date.now());
      const waited = a.wait ? this.untilAtRest(child.id, a.waitSeconds, true) : null;
      await this.deps.sessions.prompt(child.id, a.task);
      const where = `${branch ? `a new worktree ${cwd} on branch ${branch}` : cwd}${container ? (fenced ? ' (in a container behind the same fence as this session)' : ' (in a container)') : ''}${machineId === LOCAL_HOST_ID ? '' : ` on ${hostLabel(machineId)}`}`;
      if (!waited) return JSON.stringify({ sessionId: child.id, agent: agent!.name, folder: cwd, branch, note: `Started in ${where}; read_session tells its state.` }, null, 2);
      await waited;
      return this.read(child.id, true);
    } finally {
      const n = (this.starting.get(parentId) ?? 1) - 1;
      if (n > 0) this.starting.set(parentId, n);
      else this.starting.delete(parentId);
    }
  }

  /**
   * Resolves once the session is at rest (idle, ended, or waiting for a sign-in), `turn`: after a turn of it ended
   * first (a prompt about to be sent); or when `seconds` passed. Listens before it looks: nothing is missed.
   */
  private untilAtRest(id: string, seconds = DEFAULT_WAIT_S, turn: boolean): Promise<void> {
    return new Promise((resolve) => {
      let turnEnded = !turn;
      const done = () => {
        clearTimeout(timer);
        onTurn.dispose();
        onStatus.dispose();
        resolve();
      };
      const check = () => {
        const s = this.deps.sessions.state(id);
        if (!s || s.status === 'closed' || s.status === 'failed' || (turnEnded && AT_REST.has(s.status))) done();
      };
      const onTurn = this.deps.sessions.onTurnEnded((t) => {
        if (t.sessionId !== id) return;
        turnEnded = true;
        check();
      });
      const onStatus = this.deps.sessions.onStatusChanged((s) => s.id === id && check());
      const timer = setTimeout(done, seconds * 1000);
      timer.unref?.();
      check();
    });
  }

  private async read(id: string, withDiff: boolean): Promise<string> {
    const state = this.deps.sessions.state(id);
    const row = this.deps.db().prepare('SELECT worktree, branch, base_commit FROM delegations WHERE session_id = ?').get(id) as
      | { worktree: string | null; branch: string | null; base_commit: string | null }
      | undefined;
    const agent = this.deps.sessions.agents().find((a) => a.id === state?.agentId);
    const out: Record<string, unknown> = {
      sessionId: id,
      agent: agent?.name ?? state?.agentId ?? null,
      state: state?.status ?? 'closed',
      ...(state?.error ? { error: state.error } : {}),
      folder: row?.worktree ?? state?.cwd ?? null,
      branch: row?.branch ?? null,
      lastMessage: bounded(this.deps.sessions.lastMessage(id), MAX_MESSAGE_CHARS),
    };
    const cwd = row?.worktree ?? state?.cwd;
    if (!cwd || !row?.base_commit) out.files = 'not known: the folder is not a git repository';
    else {
      try {
        const changes = await folderChanges(await this.filesHost(state?.hostId ?? LOCAL_HOST_ID), cwd, row.base_commit);
        out.files = changes.files;
        if (withDiff) out.diff = changes.diff;
        if (changes.truncated) out.diffTruncated = true;
      } catch (e) {
        out.files = `not known: ${(e as Error).message}`;
      }
    }
    return JSON.stringify(out, null, 2);
  }

  async dispose(): Promise<void> {
    this.links.dispose();
    this.relays.dispose();
    await this.channel.dispose();
  }
}
