import { messageText } from '../shared/acp-thread';
import { suggestBranchName, type WorktreeError } from '../shared/contract/worktrees';
import type { AcpServices } from './core/acp/acp-services';
import type { Disposable } from './core/base/lifecycle';
import type { Hosts } from './core/host/hosts';
import type { BranchHead } from './core/tasks/branch-watcher';
import { revParse } from './core/worktrees/repo-git';
import { readStoredContainer } from './core/containers/container-spec';
import type { ContainerChoice } from '../shared/contract/containers';
import type { GuardedSessions } from './core/tasks/tasks-service';
import type { TaskWorktrees } from './core/tasks/run-queue';
import type { WorktreeService } from './core/worktrees/worktree-service';

/** The sessions as the tasks see them: started, prompted, cancelled, and heard (turn ends, usage). */
export function taskSessions(acp: AcpServices): GuardedSessions {
  const sessions = acp.sessions;
  const thread = (id: string) => sessions.session(id)?.snapshot().thread ?? null;
  return {
    create: (p) => sessions.create(p),
    prompt: async (id, text) => sessions.prompt(id, [{ type: 'text', text }]),
    cancel: (id) => sessions.session(id)?.cancel(true),
    onTurnEnded: (listener) => sessions.onTurnEnded(listener),
    lastMessage: (id) => {
      const t = thread(id);
      if (!t) return null;
      const entries = t.entries;
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i]!;
        if (e.kind === 'agent_message') return messageText(e.parts);
      }
      return null;
    },
    onUsage: (listener): Disposable =>
      sessions.onUpdated(({ sessionId, events }) => {
        for (const { event } of events) {
          const update = event.update as Record<string, unknown> | undefined;
          if (event.type === 'update' && update?.sessionUpdate === 'usage_update') listener(sessionId, update);
        }
      }),
    onPermission: (listener): Disposable => sessions.onPermissionAsked(listener),
    respondPermission: (id, requestId, optionId) => sessions.session(id)?.respondPermission(requestId, { outcome: 'selected', optionId }),
    modelOf: (id) => {
      const option = thread(id)?.configOptions.find((o) => o.category === 'model');
      return option && 'currentValue' in option && typeof option.currentValue === 'string' ? option.currentValue : null;
    },
    usageOf: (id) => {
      const usage = thread(id)?.usage;
      return usage ? { used: usage.used, cost: usage.cost?.amount ?? null } : null;
    },
    describe: (id) => {
      const s = sessions.session(id);
      if (!s) return null;
      const info = s.info();
      const t = s.snapshot().thread;
      const prompts = t.entries.flatMap((e) => (e.kind === 'user_message' && e.promptId !== null ? [messageText(e.parts)] : []));
      return { agentId: info.agentId, cwd: info.cwd, hostId: info.hostId, title: info.title, prompts, container: containerOf(acp, id) };
    },
  };
}

function problem(e: WorktreeError): string {
  if (e.kind === 'git_failed') return `${e.command} failed: ${e.output}`;
  if (e.kind === 'not_a_repo') return e.message;
  return e.kind.replace(/_/g, ' ');
}

/** A task's run worktree: a new branch `task/<name words>` (the next free one) from the checked-out branch. */
export function taskWorktrees(worktrees: WorktreeService): TaskWorktrees {
  return {
    async create(folder, name) {
      const listed = await worktrees.list(folder);
      if (!listed.ok) throw new Error(`${folder} is not a git repository: a run in a new worktree needs one (${problem(listed.error)})`);
      const base = listed.value.currentBranch;
      if (!base) throw new Error(`${listed.value.repo} is on a detached HEAD: a run in a new worktree starts from a branch`);
      const prefix = suggestBranchName(name, 'task');
      let branch = prefix;
      for (let n = 2; ; n++) {
        const out = await worktrees.createNew(listed.value.repo, branch, base);
        if (out.ok) return { path: out.value.worktree.path, branch };
        if (out.error.kind !== 'branch_exists' || n > 100) throw new Error(`could not make the run's worktree: ${problem(out.error)}`);
        branch = `${prefix}-${n}`;
      }
    },
  };
}

/** A branch's commit, read on the task's host (an SSH host only while it is connected: a poll never dials one). */
export function taskBranchHead(hosts: Hosts): BranchHead {
  return async (folder, branch, hostId) => {
    const id = hostId ?? hosts.local.id;
    if (!hosts.has(id)) return null;
    return revParse(hosts.get(id), folder, `refs/heads/${branch}`);
  };
}

/** What a session's container was made from, as a choice for a new one like it (its folders are the new run's). */
function containerOf(acp: AcpServices, sessionId: string): ContainerChoice | null {
  let stored;
  try {
    stored = readStoredContainer(acp.context.rows().container(sessionId));
  } catch {
    return null;
  }
  if (!stored) return null;
  const { network, allowHosts, memoryBytes, cpus } = stored.fence;
  return {
    source: stored.source,
    fence: { network, ...(network === 'api' ? { allowHosts } : {}), memoryMiB: Math.max(64, Math.round(memoryBytes / 1024 ** 2)), cpus },
  };
}
