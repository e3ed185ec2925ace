import { describe, expect, it } from 'vitest';
import { agentApiHosts } from '../../../src/main/core/containers/api-hosts';

const agent = (over: Partial<Parameters<typeof agentApiHosts>[0]> = {}) => ({ command: 'node', args: [], env: {}, registryId: null, ...over });

describe("the allow-list offered for the network \"only the agent's API\"", () => {
  it('is the hosts its environment points it at, with their port when not 443', () => {
    expect(agentApiHosts(agent({ registryId: 'claude-code', env: { ANTHROPIC_BASE_URL: 'http://10.1.2.3:8080/v1', OTHER: 'https://ignored.test' } }))).toEqual(['10.1.2.3:8080']);
    expect(agentApiHosts(agent({ env: { OPENAI_BASE_URL: 'https://LLM.corp.test/v1' } }), { GOOGLE_GEMINI_BASE_URL: 'http://gem.test' })).toEqual(['llm.corp.test', 'gem.test:80']);
  });

  it("is its provider's public API when its environment names none; nothing for an agent it cannot tell", () => {
    expect(agentApiHosts(agent({ registryId: 'claude-code-acp' }))).toEqual(['api.anthropic.com']);
    expect(agentApiHosts(agent({ command: 'npx', args: ['@google/gemini-cli', '--acp'] }))).toEqual(['generativelanguage.googleapis.com']);
    expect(agentApiHosts(agent({ env: { X_BASE_URL: 'file:///etc/passwd', Y_ENDPOINT: 'not a url' } }))).toEqual([]);
  });
});
