import type { Router } from '../../base/router';
import type { RuntimePool } from '../supervisor/runtime-pool';
import type { AgentsService } from './agents-service';
import { AgentProviders } from './providers';

/** The agents.* requests of the renderer. */
export function registerAgentHandlers(router: Router, agents: AgentsService, pool: RuntimePool): void {
  router.handle('agents.list', () => ({ agents: agents.list() }));
  router.handle('agents.addCustom', (p) => agents.addCustom(p));
  router.handle('agents.addByUrl', (p) => agents.addByUrl(p));
  router.handle('agents.update', (p) => agents.update(p));
  router.handle('agents.remove', async ({ agentId }) => {
    await agents.remove(agentId);
    return {};
  });
  router.handle('agents.start', ({ agentId }) => agents.start(agentId));
  router.handle('agents.stop', async ({ agentId }) => {
    await agents.stop(agentId);
    return {};
  });
  router.handle('agents.restart', ({ agentId }) => agents.restart(agentId));
  router.handle('agents.log', ({ agentId, maxBytes }) => agents.log(agentId, maxBytes));
  router.handle('agents.authenticate', (p) => agents.authenticate(p));
  router.handle('agents.logout', async ({ agentId }) => {
    await agents.logout(agentId);
    return {};
  });
  const providers = new AgentProviders(pool);
  router.handle('agents.providers', ({ agentId }) => {
    agents.assertKnown(agentId);
    return providers.list(agentId);
  });
  router.handle('agents.setProvider', (p) => {
    agents.assertKnown(p.agentId);
    return providers.set(p);
  });
  router.handle('agents.disableProvider', (p) => {
    agents.assertKnown(p.agentId);
    return providers.disable(p);
  });
  router.handle('agents.metrics', () => ({ agents: pool.supervisor.metrics() }));
}
