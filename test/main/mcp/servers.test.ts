import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, makeCore, type TestCore } from '../acp/helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const rawStored = (): { settings: string; secrets: string } => {
  const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
  try {
    const settings = (db.prepare("SELECT value_json FROM settings WHERE key = 'mcp.servers'").get() as { value_json: string }).value_json;
    const secrets = (db.prepare("SELECT group_concat(ciphertext, ' ') AS c FROM agent_secrets WHERE agent_id LIKE 'mcp:%'").get() as { c: string | null }).c ?? '';
    return { settings, secrets };
  } finally {
    db.close();
  }
};

/** The mcpServers the scenario agent logged when it received session/new. */
async function receivedServers(agentId: string): Promise<Array<{ name: string; type?: string; env?: Array<{ name: string; value: string }>; headers?: Array<{ name: string; value: string }> }>> {
  const log = await eventually(async () => {
    const text = (await t.call('agents.log', { agentId })).text;
    return text.includes('mcpServers=') ? text : null;
  }, 'the agent to log its MCP servers');
  return JSON.parse(/mcpServers=(\[.*?\]) additional/.exec(log)![1]!);
}

describe('MCP servers', () => {
  it('adds, edits and removes servers; secret values are stored encrypted and never listed', async () => {
    const { server } = await t.call('mcp.add', {
      server: {
        type: 'stdio',
        name: 'files',
        command: '/usr/bin/mcp-files',
        args: ['--root', '/tmp'],
        env: [
          { name: 'LEVEL', value: 'debug' },
          { name: 'API_TOKEN', value: 'tok-very-secret', secret: true },
        ],
      },
    });
    expect(server).toMatchObject({ type: 'stdio', name: 'files', enabled: true, agents: 'all' });
    expect(server.type === 'stdio' && server.env).toEqual([
      { name: 'LEVEL', value: 'debug', secret: false },
      { name: 'API_TOKEN', value: null, secret: true },
    ]);
    let stored = rawStored();
    expect(stored.settings).not.toContain('tok-very-secret');
    expect(stored.secrets).not.toContain('tok-very-secret');
    expect(stored.secrets).toMatch(/^v1:/);

    // An edit that leaves the secret without a value keeps it; the name is unique.
    await t.call('mcp.add', { server: { type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: [{ name: 'Authorization', value: 'Bearer b', secret: true }] } });
    expect((await t.callError('mcp.update', { id: server.id, server: { type: 'stdio', name: 'web', command: 'x' } })).code).toBe('conflict');
    await t.call('mcp.update', { id: server.id, server: { type: 'stdio', name: 'files', command: '/usr/bin/mcp-files', env: [{ name: 'API_TOKEN', secret: true }] } });
    const agentId = await t.addAgent();
    await t.call('sessions.create', { agentId, cwd: t.work });
    const given = await receivedServers(agentId);
    expect(given).toEqual([{ name: 'files', command: '/usr/bin/mcp-files', args: [], env: [{ name: 'API_TOKEN', value: 'tok-very-secret' }] }]);

    // A new secret without a value is refused; bad input is a typed error.
    expect((await t.callError('mcp.add', { server: { type: 'stdio', name: 'n', command: 'c', env: [{ name: 'K', secret: true }] } })).code).toBe('invalid_params');
    expect((await t.callError('mcp.add', { server: { type: 'http', name: 'n', url: 'file:///etc/passwd' } })).code).toBe('invalid_params');

    await t.call('mcp.remove', { id: server.id });
    const { servers } = await t.call('mcp.list', {});
    expect(servers.map((s) => s.name)).toEqual(['web']);
    stored = rawStored();
    expect(stored.settings).not.toContain('files');
    expect(stored.secrets.split(' ').filter(Boolean)).toHaveLength(1);
    expect((await t.callError('mcp.remove', { id: server.id })).code).toBe('not_found');
  });

  it('gives each agent the servers chosen for it; http only to an agent that advertises it; records the effective config', async () => {
    const plain = await t.addAgent({ SCENARIO_CAPS: 'additionalDirectories' }, 'Plain');
    const capable = await t.addAgent({ SCENARIO_CAPS: 'mcpHttp', SCENARIO_SECRET_ENV: 'x' }, 'Capable');
    await t.call('mcp.add', { server: { type: 'stdio', name: 'everyone', command: '/bin/mcp-a', env: [{ name: 'TOKEN', value: 'tok-everyone-secret', secret: true }] } });
    await t.call('mcp.add', { server: { type: 'stdio', name: 'only-capable', command: '/bin/mcp-b', agents: [capable] } });
    await t.call('mcp.add', { server: { type: 'stdio', name: 'off', command: '/bin/mcp-c', enabled: false } });
    await t.call('mcp.add', { server: { type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: [{ name: 'Authorization', value: 'Bearer x', secret: true }] } });

    const extra = t.work; // any existing folder
    const s1 = await t.call('sessions.create', { agentId: plain, cwd: t.work, additionalDirectories: [extra] });
    expect((await receivedServers(plain)).map((s) => s.name)).toEqual(['everyone']);
    const c1 = (await t.call('sessions.effectiveConfig', { sessionId: s1.id })).config!;
    expect(c1.method).toBe('session/new');
    expect(c1.cwd).toBe(t.work);
    expect(c1.additionalDirectories).toEqual([extra]);
    expect(c1.mcpServers).toEqual([{ name: 'everyone', type: 'stdio', target: '/bin/mcp-a', keys: ['TOKEN'] }]);
    expect(c1.leftOut).toEqual([
      { kind: 'mcpServer', name: 'only-capable', reason: 'not chosen for this agent' },
      { kind: 'mcpServer', name: 'off', reason: 'disabled' },
      { kind: 'mcpServer', name: 'web', reason: 'the agent does not support MCP over http' },
    ]);
    expect(JSON.stringify(c1)).not.toContain('tok-everyone-secret');
    expect(t.rec.of('session.warning').map((w) => w.message)).toContain('web: the agent does not support MCP over http');

    const s2 = await t.call('sessions.create', { agentId: capable, cwd: t.work, additionalDirectories: [extra] });
    const given = await receivedServers(capable);
    expect(given.map((s) => s.name)).toEqual(['everyone', 'only-capable', 'web']);
    expect(given[2]).toEqual({ type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: [{ name: 'Authorization', value: 'Bearer x' }] });
    const c2 = (await t.call('sessions.effectiveConfig', { sessionId: s2.id })).config!;
    expect(c2.agentEnvKeys).toEqual(['SCENARIO_CAPS', 'SCENARIO_SECRET_ENV']);
    expect(c2.leftOut).toEqual([
      { kind: 'mcpServer', name: 'off', reason: 'disabled' },
      { kind: 'directory', name: extra, reason: 'the agent does not support additional folders' },
    ]);
    expect(JSON.stringify(c2)).not.toContain('Bearer x');

    const { agents } = await t.call('mcp.list', {});
    expect(agents.find((a) => a.id === capable)?.transports).toEqual({ http: true, sse: false });
    expect(agents.find((a) => a.id === plain)?.transports).toEqual({ http: false, sse: false });
    expect((await t.callError('sessions.effectiveConfig', { sessionId: 'nope' })).code).toBe('not_found');
  });

  it('records the config again when a session is resumed after a restart, with what changed meanwhile', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await t.call('sessions.effectiveConfig', { sessionId: s.id })).config).toMatchObject({ method: 'session/new', mcpServers: [] });
    await t.call('mcp.add', { server: { type: 'stdio', name: 'later', command: '/bin/mcp-later' } });
    const restarted = await t.call('agents.restart', { agentId });
    expect(restarted.resumedSessions).toEqual([s.id]);
    const config = (await t.call('sessions.effectiveConfig', { sessionId: s.id })).config!;
    expect(config.method).toBe('session/resume');
    expect(config.mcpServers.map((m) => m.name)).toEqual(['later']);
  });

  it('reads entries written before ids (the old setting shape); every change goes through the settings service', async () => {
    await t.call('settings.set', { key: 'mcp.servers', value: [{ type: 'stdio', name: 'legacy', command: '/bin/x', env: { A: '1' } }] });
    const { servers } = await t.call('mcp.list', {});
    expect(servers).toEqual([{ id: 'legacy', type: 'stdio', name: 'legacy', command: '/bin/x', args: [], env: [{ name: 'A', value: '1', secret: false }], enabled: true, agents: 'all' }]);
    const changes = t.rec.of('settings.changed').length;
    await t.call('mcp.update', { id: 'legacy', server: { type: 'stdio', name: 'legacy', command: '/bin/y' } });
    expect(t.rec.of('settings.changed').length).toBe(changes + 1);
    expect(t.rec.of('mcp.changed').length).toBeGreaterThan(0);
    expect((await t.call('settings.get', { key: 'mcp.servers' })).entry.value).toEqual([
      { id: 'legacy', type: 'stdio', name: 'legacy', command: '/bin/y', args: [], env: {}, secretEnv: [], enabled: true, agents: 'all' },
    ]);
  });
});

describe('what is stored of the MCP servers given to a session', () => {
  it('the message log keeps their names, never their secret values (the agent still gets them)', async () => {
    await t.call('mcp.add', { server: { type: 'stdio', name: 'files', command: '/usr/bin/mcp-files', env: [{ name: 'API_TOKEN', value: 'tok-stdio-secret', secret: true }, { name: 'LEVEL', value: 'debug-plain' }] } });
    await t.call('mcp.add', { server: { type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: [{ name: 'Authorization', value: 'Bearer tok-http-secret', secret: true }] } });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'mcpHttp' });
    const session = await t.call('sessions.create', { agentId, cwd: t.work });
    const given = await receivedServers(agentId);
    expect(given.find((s) => s.name === 'files')?.env).toEqual(expect.arrayContaining([{ name: 'API_TOKEN', value: 'tok-stdio-secret' }, { name: 'LEVEL', value: 'debug-plain' }]));
    expect(given.find((s) => s.name === 'web')?.headers).toEqual([{ name: 'Authorization', value: 'Bearer tok-http-secret' }]);
    const sent = await eventually(() => {
      const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
      try {
        const row = db.prepare("SELECT body FROM acp_messages WHERE session_id = ? AND method = 'session/new' AND direction = 'c2a'").get(session.id) as { body: string } | undefined;
        return row?.body ?? null;
      } finally {
        db.close();
      }
    }, 'session/new to be stored');
    const servers = (JSON.parse(sent) as { params: { mcpServers: Array<{ name: string; env?: unknown; headers?: unknown }> } }).params.mcpServers;
    expect(servers.find((s) => s.name === 'files')?.env).toEqual(expect.arrayContaining([{ name: 'API_TOKEN', value: '[not stored]' }, { name: 'LEVEL', value: '[not stored]' }]));
    expect(servers.find((s) => s.name === 'web')?.headers).toEqual([{ name: 'Authorization', value: '[not stored]' }]);
    expect(sent).not.toMatch(/tok-stdio-secret|tok-http-secret/);
  });
});
