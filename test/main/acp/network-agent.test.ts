import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agent, methods, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AcpWsServer } from '../../support/acp-ws-server';
import { agentText, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/**
 * Agents reached over the network: the real client (runtime, wire tap, store, supervisor) against an agent
 * served by the SDK's own WebSocket server side on a loopback port, with a bearer token.
 */

const TOKEN = 'tok-3f9c2a-secret';

/** An agent that remembers each session's prompts across connections (as a server keeps its sessions). */
function rememberingAgent(server: () => AcpWsServer) {
  const sessions = new Map<string, string[]>();
  let n = 0;
  const textOf = (prompt: ContentBlock[]) =>
    prompt
      .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
      .map((b) => b.text)
      .join('');
  return () =>
    agent({ name: 'net-agent' })
      .onRequest(methods.agent.initialize, () => ({
        protocolVersion: 1,
        agentInfo: { name: 'net-agent', version: '1' },
        authMethods: [{ id: 'api-key', name: 'API key', type: 'env_var', vars: [{ name: 'NET_API_KEY' }] }],
        agentCapabilities: { sessionCapabilities: { resume: {} } },
      }))
      .onRequest(methods.agent.session.new, () => {
        const sessionId = `net-${++n}`;
        sessions.set(sessionId, []);
        return { sessionId };
      })
      .onRequest(methods.agent.session.resume, (ctx) => {
        if (!sessions.has(ctx.params.sessionId)) throw new Error('no such session');
        return {};
      })
      .onRequest(methods.agent.session.prompt, async (ctx) => {
        const text = textOf(ctx.params.prompt);
        const said = sessions.get(ctx.params.sessionId)!;
        said.push(text);
        const chunk = (t: string) =>
          ctx.client.notify(methods.client.session.update, { sessionId: ctx.params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } } });
        if (text === 'drop') {
          await chunk('working… ');
          server().drop();
          await new Promise(() => undefined);
        }
        for (const part of ['one ', 'two ', 'three. ']) await chunk(part);
        await chunk(`You said: ${said.join(', ')}.`);
        return { stopReason: 'end_turn' };
      })
      .onNotification(methods.agent.session.cancel, () => undefined);
}

let t: TestCore;
let server: AcpWsServer;
beforeEach(async () => {
  t = await makeCore();
  server = new AcpWsServer(rememberingAgent(() => server), TOKEN);
  await server.listen();
});
afterEach(async () => {
  await t.dispose();
  await server.close();
});

describe('an agent added by URL', () => {
  it('streams a turn over loopback WebSocket with its bearer token, which is stored encrypted and never shown', async () => {
    const added = await t.call('agents.addByUrl', { name: 'Remote', url: server.url, token: TOKEN });
    expect(added.url).toBe(server.url);
    expect(added.tokenStored).toBe(true);
    expect(JSON.stringify(await t.call('agents.list', {}))).not.toContain(TOKEN);
    const s = await t.call('sessions.create', { agentId: added.id, cwd: t.work });
    const end = await promptAndWait(t, s.id, 'hello');
    expect(end.stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toBe('one two three. You said: hello.');
    expect(server.accepted).toBe(1);
    // Stored like the other secrets: encrypted in the data folder, nowhere in clear.
    for (const f of readdirSync(t.dataDir).filter((n) => /\.(db|db-wal|sqlite)/.test(n))) {
      expect(readFileSync(join(t.dataDir, f)).includes(TOKEN), f).toBe(false);
    }
  });

  it('streams a turn over Streamable HTTP too', async () => {
    const { id: agentId } = await t.call('agents.addByUrl', { name: 'Remote HTTP', url: server.httpUrl, token: TOKEN });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toBe('one two three. You said: hello.');
    await t.call('agents.stop', { agentId });
    expect((await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status.state).toBe('stopped');
  });

  it('reconnects after the socket drops mid-turn and resumes the session, which goes on', async () => {
    const { id: agentId } = await t.call('agents.addByUrl', { name: 'Remote', url: server.url, token: TOKEN });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'first');
    const { promptId } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'drop' }] });
    const end = await turnEnd(t, s.id, promptId);
    expect(end.stopReason).toBeNull();
    expect(end.error?.message).toMatch(/^the connection to the agent at 127\.0\.0\.1:\d+ dropped/);
    // The supervisor reconnects (a new connection, the same token) and resumes the session.
    await t.rec.until(() => {
      const states = t.rec.of('session.state').filter((st) => st.id === s.id);
      const failed = states.findLastIndex((st) => st.status === 'failed');
      return failed >= 0 && states.slice(failed).some((st) => st.status === 'idle');
    }, 'the session resumed on a new connection');
    expect(server.accepted).toBe(2);
    const again = await promptAndWait(t, s.id, 'after');
    expect(again.stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toContain('You said: first, drop, after.');
  });

  it('says in a sentence that a wrong token was refused', async () => {
    const { id: agentId } = await t.call('agents.addByUrl', { name: 'Remote', url: server.url, token: 'not-the-token' });
    const err = await t.callError('sessions.create', { agentId, cwd: t.work });
    expect(err.code).toBe('agent_error');
    expect(err.message).toMatch(/^the agent at 127\.0\.0\.1:\d+ refused the token \(HTTP 401\): check the token stored for this agent$/);
    expect(server.refused).toBe(1);
    const status = (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status;
    expect(status.state).toBe('failed');
    // The same over Streamable HTTP (the 401 answers the initialize POST).
    const viaHttp = await t.call('agents.addByUrl', { name: 'Remote HTTP', url: server.httpUrl, token: 'not-the-token' });
    const httpErr = await t.callError('sessions.create', { agentId: viaHttp.id, cwd: t.work });
    expect(httpErr.message).toMatch(/^the agent at 127\.0\.0\.1:\d+ refused the token \(HTTP 401\): check the token stored for this agent$/);
    // The right token, set later, is used at the next start.
    await t.call('agents.update', { agentId, token: TOKEN });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await promptAndWait(t, s.id, 'hi')).stopReason).toBe('end_turn');
  });

  it('says that an env-var sign-in happens where the agent runs (no process here takes the variable)', async () => {
    const { id: agentId } = await t.call('agents.addByUrl', { name: 'Remote', url: server.url, token: TOKEN });
    const err = await t.callError('agents.authenticate', { agentId, methodId: 'api-key', values: { NET_API_KEY: 'k' } });
    expect(err.code).toBe('unavailable');
    expect(err.message).toBe('API key signs in where the agent runs (its environment); this agent is reached at its URL, so sign in on its machine');
    expect((await t.call('agents.list', {})).agents[0]!.storedSecrets).toEqual([]);
  });

  it('refuses an unencrypted URL to another machine, however it is given', async () => {
    for (const url of ['http://agent.example.com/acp', 'ws://192.168.1.20:8080/acp', 'ws://localhost.example.com/acp', 'http://127.0.0.1.nip.io/acp']) {
      const err = await t.callError('agents.addByUrl', { name: 'Plain', url, token: TOKEN });
      expect(err.code, url).toBe('invalid_params');
      expect(err.message, url).toMatch(/is accepted only on this machine .*Use (wss|https): for an agent on another machine\.$/);
      // Typed as a command, the same URL is refused the same way.
      expect((await t.callError('agents.addCustom', { name: 'Plain', command: url, args: [], env: {}, cwd: null })).message, url).toContain('accepted only on this machine');
    }
    // A token that would break the header it is sent in is refused too.
    expect((await t.callError('agents.addByUrl', { name: 'Bad token', url: server.url, token: 'abc\r\nX-Injected: 1' })).code).toBe('invalid_params');
    const { id } = await t.call('agents.addByUrl', { name: 'Ok', url: 'wss://agent.example.com/acp', token: null });
    expect((await t.callError('agents.update', { agentId: id, url: 'http://agent.example.com/acp' })).code).toBe('invalid_params');
    expect((await t.call('agents.list', {})).agents.find((a) => a.id === id)!.url).toBe('wss://agent.example.com/acp');
    expect((await t.call('agents.list', {})).agents.map((a) => a.name)).toEqual(['Ok']);
  });
});
