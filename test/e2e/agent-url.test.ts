import { agent, methods } from '@agentclientprotocol/sdk/unstable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpWsServer } from '../support/acp-ws-server';
import { appSuite } from '../support/app-suite';
import { agentRow, agentsSidebar, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Issue 40: an agent added "By URL" in the agent form, served over loopback WebSocket by the SDK's own server
 * side with a bearer token. A plain URL to another machine is refused in the form; the session header says
 * where the agent runs.
 */

const suite = appSuite('agent-url');
const TOKEN = 'e2e-token-7d1';
let n = 0;
const server = new AcpWsServer(
  () =>
    agent({ name: 'net-agent' })
      .onRequest(methods.agent.initialize, () => ({ protocolVersion: 1, agentInfo: { name: 'net-agent', version: '1' }, authMethods: [], agentCapabilities: {} }))
      .onRequest(methods.agent.session.new, () => ({ sessionId: `net-${++n}` }))
      .onRequest(methods.agent.session.prompt, async (ctx) => {
        await ctx.client.notify(methods.client.session.update, {
          sessionId: ctx.params.sessionId,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello over the network.' } },
        });
        return { stopReason: 'end_turn' };
      })
      .onNotification(methods.agent.session.cancel, () => undefined),
  TOKEN,
);
beforeAll(() => server.listen());
afterAll(() => server.close());

describe('adding an agent by URL', { timeout: 90_000 }, () => {
  it('refuses plain http to another machine, adds a loopback WebSocket agent with its token, and the header says where it runs', async () => {
    const { page } = await suite.open();
    await agentsSidebar(page).getByTestId('add-custom-agent').click();
    await page.getByTestId('agent-add-by-url').click();
    const form = page.getByTestId('agent-url-form');
    await form.getByTestId('agent-name').fill('Networked');
    await form.getByTestId('agent-url').fill('http://agent.example.com/acp');
    await expect(form.getByTestId('agent-url-problem').innerText()).resolves.toContain('http: is accepted only on this machine');
    await form.getByTestId('agent-url').fill(server.url);
    await form.getByTestId('agent-url-problem').waitFor({ state: 'detached' });
    await form.getByTestId('agent-token').fill(TOKEN);
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });

    const row = agentRow(page, 'Networked');
    await row.waitFor();
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const where = new URL(server.url).host;
    await expect(tab.getByTestId('session-host').innerText()).resolves.toBe(`at ${where}`);
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello over the network.' }).waitFor();
    expect(server.accepted).toBe(1);
  });
});
