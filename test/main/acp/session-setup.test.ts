import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, eventually, makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

describe('session setup and settings', () => {
  it('sets the mode and config options (select and boolean) and folds the answers into the thread', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    let thread = (await t.call('sessions.state', { sessionId: s.id })).thread;
    expect(thread.modes?.currentModeId).toBe('ask');
    expect(thread.configOptions.map((o) => [o.id, o.currentValue])).toEqual([
      ['mode', 'ask'],
      ['model', 'fast'],
      ['think', false],
    ]);
    await t.call('sessions.setMode', { sessionId: s.id, modeId: 'code' });
    const model = await t.call('sessions.setConfigOption', { sessionId: s.id, configId: 'model', value: 'smart' });
    expect(model.configOptions.find((o) => o.id === 'model')?.currentValue).toBe('smart');
    await t.call('sessions.setConfigOption', { sessionId: s.id, configId: 'think', value: true });
    expect((await t.callError('sessions.setConfigOption', { sessionId: s.id, configId: 'think', value: 'yes' })).code).toBe('invalid_params');
    expect((await t.callError('sessions.setConfigOption', { sessionId: s.id, configId: 'nope', value: 'x' })).code).toBe('not_found');
    thread = (await t.call('sessions.state', { sessionId: s.id })).thread;
    expect(thread.modes?.currentModeId).toBe('code');
    expect(thread.configOptions.map((o) => [o.id, o.currentValue])).toEqual([
      ['mode', 'code'],
      ['model', 'smart'],
      ['think', true],
    ]);
    // The wire log has the agent's complete answer.
    const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    const methods = (db.prepare("SELECT method FROM acp_messages WHERE session_id = ? AND direction = 'c2a'").all(s.id) as Array<{ method: string }>).map((r) => r.method);
    db.close();
    expect(methods).toEqual(['session/new', 'session/set_mode', 'session/set_config_option', 'session/set_config_option']);
  });

  it('passes MCP servers from settings: stdio always, http only when the agent supports it', async () => {
    await t.call('settings.set', {
      key: 'mcp.servers',
      value: [
        { type: 'stdio', name: 'files', command: '/usr/bin/mcp-files', args: ['--stdio'], env: { TOKEN: 't' } },
        { type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: { Authorization: 'Bearer x' } },
        { type: 'stdio', name: 'off', command: '/bin/false', enabled: false },
      ],
    });
    const plain = await t.addAgent();
    await t.call('sessions.create', { agentId: plain, cwd: t.work });
    const plainLog = await eventually(async () => {
      const text = (await t.call('agents.log', { agentId: plain })).text;
      return text.includes('mcpServers=') ? text : null;
    }, 'the agent to log its MCP servers');
    const plainServers = JSON.parse(/mcpServers=(\[.*?\]) additional/.exec(plainLog)![1]!) as Array<{ name: string }>;
    expect(plainServers.map((m) => m.name)).toEqual(['files']);
    expect(plainServers[0]).toEqual({ name: 'files', command: '/usr/bin/mcp-files', args: ['--stdio'], env: [{ name: 'TOKEN', value: 't' }] });
    expect(t.rec.of('session.warning').map((w) => w.message).join('\n')).toContain('web: the agent does not support MCP over http');

    const capable = await t.addAgent({ SCENARIO_CAPS: 'mcpHttp' });
    await t.call('sessions.create', { agentId: capable, cwd: t.work });
    const log = await eventually(async () => {
      const text = (await t.call('agents.log', { agentId: capable })).text;
      return text.includes('mcpServers=') ? text : null;
    }, 'the agent to log its MCP servers');
    const servers = JSON.parse(/mcpServers=(\[.*?\]) additional/.exec(log)![1]!) as Array<{ name: string; type?: string }>;
    expect(servers.map((m) => m.name)).toEqual(['files', 'web']);
    expect(servers[1]).toEqual({ type: 'http', name: 'web', url: 'https://mcp.example.com/', headers: [{ name: 'Authorization', value: 'Bearer x' }] });
  });

  it('turns @-mentions into embedded resources or links by the agent capabilities, and refuses images it cannot take', async () => {
    writeFileSync(join(t.work, 'a.txt'), 'alpha');
    const embedding = await t.addAgent({ SCENARIO_CAPS: 'embeddedContext' });
    const s1 = await t.call('sessions.create', { agentId: embedding, cwd: t.work });
    const uri = pathToFileURL(join(t.work, 'a.txt')).href;
    await t.call('sessions.prompt', { sessionId: s1.id, prompt: [{ type: 'text', text: 'echo' }, { type: 'mention', path: join(t.work, 'a.txt') }] });
    await t.rec.until(() => agentText(t.rec, s1.id), 'the echo');
    expect(JSON.parse(agentText(t.rec, s1.id))[1]).toEqual({ type: 'resource', resource: { uri, text: 'alpha' } });

    const linking = await t.addAgent();
    const s2 = await t.call('sessions.create', { agentId: linking, cwd: t.work });
    await t.call('sessions.prompt', { sessionId: s2.id, prompt: [{ type: 'text', text: 'echo' }, { type: 'mention', path: join(t.work, 'a.txt') }] });
    await t.rec.until(() => agentText(t.rec, s2.id), 'the echo');
    expect(JSON.parse(agentText(t.rec, s2.id))[1]).toEqual({ type: 'resource_link', uri, name: 'a.txt', size: 5 });

    const image = await t.callError('sessions.prompt', { sessionId: s2.id, prompt: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] });
    expect(image.code).toBe('invalid_params');
    const outside = await t.call('sessions.prompt', { sessionId: s2.id, prompt: [{ type: 'text', text: 'echo' }, { type: 'mention', path: '/etc/hostname' }] });
    const end = await t.rec.until(
      () => t.rec.updates().find((u) => u.event.type === 'turn_end' && u.event.promptId === outside.promptId),
      'the refused mention',
    );
    expect(end.event.type === 'turn_end' && end.event.error?.code).toBe('forbidden');
  });

  it('searches files for @-mentions inside the roots, skipping node_modules and .git', async () => {
    mkdirSync(join(t.work, 'src/components'), { recursive: true });
    mkdirSync(join(t.work, 'node_modules/pkg'), { recursive: true });
    mkdirSync(join(t.work, '.git'), { recursive: true });
    writeFileSync(join(t.work, 'src/components/Button.tsx'), '');
    writeFileSync(join(t.work, 'src/index.ts'), '');
    writeFileSync(join(t.work, 'node_modules/pkg/Button.js'), '');
    writeFileSync(join(t.work, '.git/config'), '');
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const r = await t.call('sessions.mentionSearch', { sessionId: s.id, query: 'button' });
    expect(r.results.map((x) => x.relativePath)).toEqual(['src/components/Button.tsx']);
    expect(r.results[0]).toMatchObject({ path: join(t.work, 'src/components/Button.tsx'), root: t.work });
    const all = await t.call('sessions.mentionSearch', { sessionId: s.id, query: '' });
    expect(all.results.map((x) => x.relativePath).sort()).toEqual(['src/components/Button.tsx', 'src/index.ts']);
  });

  it('closes a session: session/close when advertised, status closed, no longer live', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'close' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await t.call('sessions.live', {})).sessions.map((x) => x.id)).toEqual([s.id]);
    await promptAndWait(t, s.id, 'hello');
    await t.call('sessions.close', { sessionId: s.id });
    expect(t.rec.of('session.state').at(-1)).toMatchObject({ id: s.id, status: 'closed' });
    expect((await t.call('sessions.live', {})).sessions).toEqual([]);
    expect((await t.callError('sessions.state', { sessionId: s.id })).code).toBe('not_found');
    const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    const row = db.prepare('SELECT status, acp_session_id FROM sessions WHERE id = ?').get(s.id) as { status: string; acp_session_id: string };
    const last = db.prepare("SELECT method FROM acp_messages WHERE session_id = ? AND direction = 'c2a' ORDER BY seq DESC LIMIT 1").get(s.id) as { method: string };
    db.close();
    expect(row).toEqual({ status: 'closed', acp_session_id: s.acpSessionId });
    expect(last.method).toBe('session/close');
  });
});
