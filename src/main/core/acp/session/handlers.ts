import { IpcFailure } from '../../../../shared/contract';
import type { Router } from '../../base/router';
import { readAgentRuleFile } from './agent-rule-files';
import { archiveOnAgent } from './session-archive';
import { RestoreService } from './session-restore';
import type { SessionsService } from './sessions-service';

/** The sessions.* and permissionRules.* requests of the renderer. */
export function registerSessionHandlers(router: Router, sessions: SessionsService): void {
  const live = (id: string) => sessions.get(id);
  router.handle('sessions.create', (p) => sessions.create(p));
  router.handle('sessions.fork', ({ sessionId }) => sessions.fork(sessionId));
  router.handle('sessions.prompt', ({ sessionId, prompt }) => sessions.promptWaking(sessionId, prompt));
  router.handle('sessions.cancel', ({ sessionId, clearQueue }) => {
    live(sessionId).cancel(clearQueue);
    return {};
  });
  router.handle('sessions.setMode', async ({ sessionId, modeId }) => {
    await live(sessionId).setMode(modeId);
    return {};
  });
  router.handle('sessions.setConfigOption', async ({ sessionId, configId, value }) => ({
    configOptions: await live(sessionId).setConfigOption(configId, value),
  }));
  router.handle('sessions.respondElicitation', (p) => {
    live(p.sessionId).respondElicitation(p.requestId, p.action, p.action === 'accept' ? p.content : undefined);
    return {};
  });
  router.handle('sessions.respondPermission', (p) => {
    live(p.sessionId).respondPermission(p.requestId, p.outcome === 'selected' ? { outcome: 'selected', optionId: p.optionId, confirmMismatch: p.confirmMismatch === true } : { outcome: 'cancelled' });
    return {};
  });
  router.handle('sessions.queue.list', ({ sessionId }) => ({ items: live(sessionId).queueItems() }));
  router.handle('sessions.queue.update', ({ sessionId, itemId, prompt }) => ({ items: live(sessionId).updateQueued(itemId, prompt) }));
  router.handle('sessions.queue.remove', ({ sessionId, itemId }) => ({ items: live(sessionId).removeQueued(itemId) }));
  router.handle('sessions.queue.move', ({ sessionId, itemId, toIndex }) => ({ items: live(sessionId).moveQueued(itemId, toIndex) }));
  router.handle('sessions.queue.clear', ({ sessionId }) => ({ items: live(sessionId).clearQueue() }));
  router.handle('sessions.close', async ({ sessionId }) => {
    await live(sessionId).close();
    return {};
  });
  router.handle('sessions.wake', async ({ sessionId }) => {
    live(sessionId);
    await sessions.wake(sessionId);
    return {};
  });
  router.handle('sessions.state', ({ sessionId, tail }) => live(sessionId).snapshot(tail));
  router.handle('sessions.entries', ({ sessionId, from, count }) => live(sessionId).entries(from, count));
  router.handle('sessions.toolIndex', ({ sessionId }) => live(sessionId).toolIndex());
  router.handle('sessions.effectiveConfig', ({ sessionId }) => ({ config: sessions.effectiveConfig(sessionId) }));
  router.handle('sessions.reopen', ({ sessionId }) => sessions.reopenSession(sessionId));
  router.handle('sessions.live', () => ({ sessions: sessions.list() }));
  router.handle('sessions.subagents', ({ sessionId }) => ({ subagents: sessions.subagentsOf(sessionId) }));
  router.handle('sessions.mentionSearch', ({ sessionId, query, limit }) => live(sessionId).mentionSearch(query, limit));
  router.handle('sessions.readFile', ({ sessionId, path }) => sessions.readFile(sessionId, path));
  router.handle('sessions.attachText', ({ sessionId, text }) => sessions.attachText(sessionId, text));
  router.handle('sessions.heldAtAgents', async ({ sessionIds }) => ({ held: await sessions.heldAtAgents(sessionIds) }));
  router.handle('agents.listSessions', ({ agentId, cwd, cursor }) => sessions.listAgentSessions(agentId, cwd, cursor));

  const restore = new RestoreService(sessions);
  router.handle('sessions.reopenPlan', ({ sessionId }) => restore.plan(sessionId));
  router.handle('sessions.import', (p) => restore.import(p));
  router.handle('sessions.deleteOnAgent', ({ sessionId }) => restore.deleteOnAgent(sessionId));
  router.handle('sessions.archiveOnAgent', ({ sessionId, archived }) => archiveOnAgent(sessions, sessionId, archived));
  router.handle('agents.knownSessions', ({ agentId, acpSessionIds }) => ({ known: restore.known(agentId, acpSessionIds) }));

  router.handle('permissionRules.list', ({ agentId }) => ({ rules: sessions.rules().list(agentId) }));
  router.handle('permissionRules.set', ({ id, agentId, toolKind, scope, decision }) => {
    if (!sessions.agents().get(agentId)) throw new IpcFailure('not_found', `no agent ${agentId}`);
    return { rule: sessions.rules().set({ agentId, toolKind, scope, decision, label: null }, id) };
  });
  router.handle('permissionRules.agentFiles', ({ folder }) => ({ files: sessions.agentRuleFiles(folder) }));
  router.handle('permissionRules.readAgentFile', ({ path }) => {
    const content = readAgentRuleFile(sessions.agentRuleFiles(), path);
    if (content === null) throw new IpcFailure('not_found', `${path} is not a rule file of an open session's agent`);
    return { path, content };
  });
  router.handle('permissionRules.remove', ({ id }) => {
    if (!sessions.rules().remove(id)) throw new IpcFailure('not_found', `no permission rule ${id}`);
    return {};
  });
}
