import { describe, expect, it } from 'vitest';
import { agentUrlHost, checkAgentUrl } from '../../src/shared/agent-url';

describe('which agent URLs are accepted', () => {
  it('accepts encrypted URLs anywhere and plain ones on loopback only', () => {
    for (const url of ['wss://agent.example.com/acp', 'https://agent.example.com:8443/acp', 'ws://127.0.0.1:7777/acp', 'http://localhost:3000/', 'ws://[::1]:9/acp', 'ws://127.8.9.10/', 'http://api.localhost/', 'ws://2130706433/' /* 127.0.0.1, as the URL parser reads it */]) {
      expect(checkAgentUrl(url).ok, url).toBe(true);
    }
  });

  it('refuses plain URLs to other machines, however the host is spelled', () => {
    for (const url of [
      'http://agent.example.com/acp',
      'ws://10.0.0.2/acp',
      'ws://localhost.example.com/',
      'http://127.0.0.1.nip.io/',
      'ws://0.0.0.0:80/',
      'http://[::ffff:127.0.0.1]/',
      'HTTP://EXAMPLE.COM/',
      'ws://127.0.0.1@example.com/',
    ]) {
      const r = checkAgentUrl(url);
      expect(r.ok, url).toBe(false);
    }
  });

  it('refuses other schemes, credentials in the URL and non-URLs, in a sentence', () => {
    expect(checkAgentUrl('file:///tmp/agent.sock')).toMatchObject({ ok: false, error: expect.stringContaining('file: URLs are not agent URLs') });
    expect(checkAgentUrl('wss://user:pw@agent.example.com/')).toMatchObject({ ok: false, error: expect.stringContaining('Token field') });
    expect(checkAgentUrl('not a url')).toMatchObject({ ok: false, error: expect.stringContaining('is not a URL') });
    expect(checkAgentUrl(`wss://a.example.com/${'x'.repeat(3000)}`)).toMatchObject({ ok: false });
  });

  it('names where the agent runs: the URL host', () => {
    expect(agentUrlHost('wss://agent.example.com:8443/acp')).toBe('agent.example.com:8443');
    expect(agentUrlHost('/usr/bin/agent')).toBeNull();
  });
});
