import { suggestBranchName } from '../shared/contract/worktrees';
import type { AcpServices } from './core/acp/acp-services';
import type { Disposable } from './core/base/lifecycle';
import type { ContainerService } from './core/containers/container-service';
import { readStoredContainer } from './core/containers/container-spec';
import type { DelegationContainers, DelegationService, DelegationSessions, DelegationWorktrees } from './core/delegation/delegation-service';
import type { Host } from './core/host/host';
import { gitOwn } from './core/worktrees/git';
import type { WorktreeService } from './core/worktrees/worktree-service';
import { taskSessions } from './tasks-wiring';
import { cardState, childState, showCard } from './delegated-cards';

/** The sessions as delegation sees them: started as children, prompted, read, and heard. */
export function delegationSessions(acp: AcpServices, covered?: (childId: string, parentId: string) => void): DelegationSessions & Disposable {
  const sessions = acp.sessions;
  const tasks = taskSessions(acp);
  const link = sessions.onStatusChanged((info) => {
    // A parent whose agent stopped (crashed, or stopped by its host) ends the turns of the sessions it delegated to,
    // as its cancel would: nobody is left to read them.
    if (info.status === 'failed') for (const s of sessions.list()) if (s.delegatedBy === info.id && s.status !== 'closed') sessions.session(s.id)?.cancel(true);
    // The parent's card follows its child's status.
    const state = info.delegatedBy && info.acpSessionId ? cardState(info) : null;
    if (state) showCard(acp, info.delegatedBy!, info.acpSessionId!, { state });
  });
  return {
    async create({ agentId, hostId, cwd, parentId, task, container }) {
      const info = await sessions.create({ agentId, hostId, cwd, ...(container ? { container } : {}) });
      const child = sessions.session(info.id);
      if (child) child.delegatedBy = parentId;
      acp.context.rows().linkParent(info.id, parentId);
      // Before its first prompt: the parent's spend limits cover what the child spends.
      covered?.(info.id, parentId);
      const name = acp.agents.list().find((a) => a.id === agentId)?.name ?? agentId;
      if (info.acpSessionId) {
        showCard(acp, parentId, info.acpSessionId, { title: `${name} (delegated)`, description: task.slice(0, 900), state: childState(info.status), capabilities: { cancel: {} } });
      }
      if (child) acp.context.bus.emit('session.state', child.info());
      return { id: info.id };
    },
    prompt: async (id, text) => sessions.prompt(id, [{ type: 'text', text }]),
    cancel: (id) => sessions.session(id)?.cancel(false),
    state: (id) => {
      const s = sessions.session(id);
      if (!s) return null;
      const info = s.info();
      return { status: info.status, agentId: info.agentId, cwd: info.cwd, hostId: info.hostId, title: info.title, error: info.error };
    },
    lastMessage: (id) => tasks.lastMessage(id),
    onTurnEnded: (listener) => sessions.onTurnEnded(listener),
    onStatusChanged: (listener) => sessions.onStatusChanged(listener),
    agents: () => acp.agents.list().map((a) => ({ id: a.id, name: a.name })),
    dispose: () => link.dispose(),
  };
}

/**
 * A delegated session's worktree: a new branch `delegate/<task words>` (the next free one) from the folder's current
 * branch, made by the worktrees service on the folder's machine (an SSH host's beside the repository there), so the
 * user sees, commits, merges and discards it as any other. `hosts`: a machine by its id.
 */
export function delegationWorktrees(worktrees: WorktreeService, hosts: (machineId: string) => Promise<Host>): DelegationWorktrees {
  return {
    async create(folder, task, machineId) {
      const host = await hosts(machineId);
      const head = await gitOwn(host, folder, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
      const base = head.code === 0 ? head.stdout.trim() : null;
      if (!base) throw new Error(`${folder} is not on a branch (not a git repository, or a detached HEAD): a new worktree starts from a branch`);
      const listed = await worktrees.list(folder, machineId);
      if (!listed.ok) throw new Error(`${folder} is not a git repository`);
      const prefix = suggestBranchName(task, 'delegate');
      let branch = prefix;
      for (let n = 2; ; n++) {
        const out = await worktrees.createNew(listed.value.repo, branch, base, undefined, machineId);
        if (out.ok) return { path: out.value.worktree.path, branch };
        if (out.error.kind !== 'branch_exists' || n > 100) throw new Error(`could not make the worktree: ${out.error.kind === 'git_failed' ? out.error.output : out.error.kind.replace(/_/g, ' ')}`);
        branch = `${prefix}-${n}`;
      }
    },
  };
}

/**
 * A delegated child in a container: behind its parent's fence when the parent runs in a container, else placed
 * as the new-session form places one (the folder's devcontainer.json, else the default image; the fence left to
 * Settings → Containers). `stored`: a session's stored container (the sessions table's).
 */
export function delegationContainers(containers: ContainerService, defaultImage: () => string, stored: (sessionId: string) => string | null): DelegationContainers {
  return {
    async problem(machineId) {
      const status = await containers.engineStatus(machineId);
      return status.engine ? null : (status.problem ?? 'no container engine is available');
    },
    async choice(machineId, folder, parentId) {
      const parent = readStoredContainer(stored(parentId));
      if (parent) {
        const f = parent.fence;
        return { source: parent.source, fence: { network: f.network, ...(f.network === 'api' ? { allowHosts: f.allowHosts } : {}), memoryMiB: Math.max(64, Math.floor(f.memoryBytes / 1024 ** 2)), cpus: f.cpus } };
      }
      if (await containers.repoConfig(machineId, folder)) return { source: { kind: 'repo', allow: [] }, fence: {} };
      const image = defaultImage();
      if (!image) throw new Error(`${folder} has no devcontainer.json and no default image is set (Settings → Containers)`);
      return { source: { kind: 'image', image }, fence: {} };
    },
  };
}

/** Gives each session opened the delegation server when it is on for the session (see DelegationService.serverFor). */
export function provideDelegation(acp: AcpServices, delegation: DelegationService): Disposable {
  return acp.sessions.provideOwnMcp(async (sessionId, agentId) => {
    const hostId = acp.sessions.session(sessionId)?.runtime.hostId ?? 'local';
    const out = await delegation.serverFor(sessionId, agentId, hostId);
    if (!out) return null;
    if ('leftOut' in out) return { leftOut: { name: 'switchboard-delegation', reason: out.leftOut, warn: true } };
    return { server: out.acp, given: out.given };
  });
}
