/**
 * The MCP stdio servers a session on an SSH host is given start on the host, against a real OpenSSH server
 * (test/support/sshd.ts): the scenario agent (cap "mcpStart") runs there, gets the server of the `mcp.servers`
 * setting at session/new, starts it and lists its tools; the server itself records that it ran as the remote
 * user, with the remote user's home, in the remote folder.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eSshHost } from '../../support/ssh-e2e';
import { mcpFixtureCommand } from '../../fixtures/mcp-server/launch';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { eventually, makeCore, type TestCore } from '../acp/helpers';

const host = await startE2eSshHost('the MCP-servers-on-a-host test');

describe.skipIf(host === null)('MCP stdio servers of a session on an SSH host', () => {
  let t: TestCore;

  beforeAll(async () => {
    t = await makeCore({ sshConfigFile: host!.sshd.configFile });
    expect(await t.call('hosts.connect', { hostId: host!.hostId })).toMatchObject({ ok: true });
  }, 90_000);

  afterAll(async () => {
    await t?.dispose();
  });

  it('start on the host, as the remote user, in the session\'s folder there, and answer the agent\'s tools/list', async () => {
    const h = host!;
    // The test runs as another user than the remote one: the server's uid tells where it ran.
    expect(process.getuid?.()).not.toBe(h.uid);
    const folder = h.folder('mcp-on-host');
    const where = join(folder, 'mcp-where.json');
    const { command, args } = mcpFixtureCommand();
    await t.call('settings.set', {
      key: 'mcp.servers',
      value: [{ type: 'stdio', name: 'fixture', command, args, env: { MCP_FIXTURE_TOOLS: '4', MCP_FIXTURE_WHERE: where } }],
    });
    const agent = await t.call('agents.addCustom', { name: 'Scenario', ...scenarioAgentCommand(), env: { SCENARIO_CAPS: 'mcpStart' }, cwd: t.work });
    const session = await t.call('sessions.create', { agentId: agent.id, hostId: h.hostId, cwd: folder });
    expect(session).toMatchObject({ hostId: h.hostId, cwd: folder });

    const log = await eventually(
      async () => {
        const text = (await t.call('agents.log', { agentId: agent.id })).text;
        return text.includes('mcp fixture: ') ? text : null;
      },
      'the agent on the host to start its MCP server and list its tools',
      90_000,
    );
    const given = JSON.parse(/mcpServers=(\[.*?\]) additional/.exec(log)![1]!) as unknown[];
    expect(given).toEqual([{ name: 'fixture', command, args, env: [{ name: 'MCP_FIXTURE_TOOLS', value: '4' }, { name: 'MCP_FIXTURE_WHERE', value: where }] }]);
    expect(log).toContain('mcp fixture: 4 tools');

    const ran = JSON.parse(readFileSync(where, 'utf8')) as Record<string, unknown>;
    expect(ran).toEqual({ uid: h.uid, user: h.sshd.user, home: h.sshd.home, cwd: folder, pid: expect.any(Number) });
    expect(statSync(where).uid).toBe(h.uid);
  }, 180_000);
});
