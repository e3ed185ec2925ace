import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, type TestCore } from '../acp/helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const agentLog = async (agentId: string) => (await t.call('agents.log', { agentId })).text;

describe('model providers (providers/list|set|disable)', () => {
  it('an agent that offers providers lists them; a provider is set with its headers, disabled, and the required one is kept', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'providers' });
    const listed = await t.call('agents.providers', { agentId });
    expect(listed).toEqual({
      offered: true,
      providers: [
        { id: 'main', supported: ['anthropic', 'bedrock'], required: true, current: { apiType: 'anthropic', baseUrl: 'https://api.anthropic.com' } },
        { id: 'openai', supported: ['openai', 'azure'], required: false, current: null },
      ],
    });

    const set = await t.call('agents.setProvider', { agentId, providerId: 'openai', apiType: 'azure', baseUrl: 'https://my.azure.example/v1', headers: { 'api-key': 'k-123' } });
    expect(set.providers.find((p) => p.id === 'openai')?.current).toEqual({ apiType: 'azure', baseUrl: 'https://my.azure.example/v1' });

    // The agent's refusal is said, and nothing changes.
    const refused = await t.callError('agents.setProvider', { agentId, providerId: 'openai', apiType: 'vertex', baseUrl: 'https://x.example' });
    expect(refused.code).toBe('agent_error');
    expect(refused.message).toContain('does not speak vertex');
    expect((await t.call('agents.providers', { agentId })).providers.find((p) => p.id === 'openai')?.current?.apiType).toBe('azure');

    const disabled = await t.call('agents.disableProvider', { agentId, providerId: 'openai' });
    expect(disabled.providers.find((p) => p.id === 'openai')?.current).toBeNull();

    // A required provider is not disabled (the client must not ask): refused before the agent hears of it.
    const required = await t.callError('agents.disableProvider', { agentId, providerId: 'main' });
    expect(required).toMatchObject({ code: 'invalid_params' });
    expect(required.message).toContain('cannot be disabled');
    expect(await agentLog(agentId)).not.toContain('providers/disable main');
    expect((await t.call('agents.providers', { agentId })).providers[0]?.current).not.toBeNull();

    // Header lines that could break the request are refused by the contract.
    expect((await t.callError('agents.setProvider', { agentId, providerId: 'openai', apiType: 'openai', baseUrl: 'https://x.example', headers: { a: 'x\r\nInjected: 1' } })).code).toBe('invalid_params');
    expect((await t.callError('agents.setProvider', { agentId, providerId: 'openai', apiType: 'openai', baseUrl: 'file:///etc/passwd' })).code).toBe('invalid_params');
  });

  it('an agent without providers says so; hostile provider text is bounded', async () => {
    const plain = await t.addAgent({}, 'Plain');
    expect(await t.call('agents.providers', { agentId: plain })).toEqual({ offered: false, providers: [] });
    expect((await t.callError('agents.setProvider', { agentId: plain, providerId: 'main', apiType: 'openai', baseUrl: 'https://x.example' })).code).toBe('unavailable');

    const hostile = await t.addAgent({ SCENARIO_CAPS: 'providers', SCENARIO_PROVIDERS: 'hostile' }, 'Hostile');
    const evil = (await t.call('agents.providers', { agentId: hostile })).providers[2]!;
    expect(evil.id.length).toBeLessThanOrEqual(200);
    expect(evil.supported.length).toBeLessThanOrEqual(32);
    expect(evil.current!.baseUrl.length).toBeLessThanOrEqual(2048);
  });

  it("what the user chose is given again to the agent's next process (providers are process-scoped), and forgotten with the agent", async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'providers' });
    await t.call('agents.setProvider', { agentId, providerId: 'openai', apiType: 'azure', baseUrl: 'https://my.azure.example/v1', headers: { 'api-key': 'k-123' } });
    await t.call('agents.restart', { agentId });
    const after = await t.call('agents.providers', { agentId });
    expect(after.providers.find((p) => p.id === 'openai')?.current).toEqual({ apiType: 'azure', baseUrl: 'https://my.azure.example/v1' });
    // Given before any session, with its header (named in the agent's log, its value not).
    expect(await agentLog(agentId)).toContain('providers/set openai azure https://my.azure.example/v1 headers=api-key');
    expect(await agentLog(agentId)).not.toContain('k-123');

    // Disabled: the next process has it disabled too, whatever its own default.
    await t.call('agents.disableProvider', { agentId, providerId: 'openai' });
    await t.call('agents.restart', { agentId });
    expect((await t.call('agents.providers', { agentId })).providers.find((p) => p.id === 'openai')?.current).toBeNull();

    await t.call('agents.setProvider', { agentId, providerId: 'openai', apiType: 'openai', baseUrl: 'https://gw.example/v1' });
    await t.call('agents.remove', { agentId });
    const again = await t.addAgent({ SCENARIO_CAPS: 'providers' });
    expect((await t.call('agents.providers', { agentId: again })).providers.find((p) => p.id === 'openai')?.current).toBeNull();
  });
});
