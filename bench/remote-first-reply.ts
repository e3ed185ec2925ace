// remote.first_reply_overhead_ms (part of `npm run bench -- remote`): a prompt → the first chunk of the agent's
// reply reaching the window's event stream (the `session.update` main sends; the paint after it is the same
// for both), for a session of the scenario agent on the loopback SSH host minus the same on this machine, through
// one set of ACP services (sessions, runtimes, the message log), rounds alternating between the two. Checkpoints
// are left out on both sides: the app snapshots a local folder before a turn, which is not the transport's cost.
// Goal ≤ 30 ms.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AcpServices } from '../src/main/core/acp/acp-services';
import { EventBus } from '../src/main/core/base/event-bus';
import type { Host } from '../src/main/core/host/host';
import { Hosts } from '../src/main/core/host/hosts';
import { defaultsReader } from '../src/main/core/settings/settings-service';
import { openDatabase } from '../src/main/core/store/database';
import { PtyHost } from '../src/main/core/terminals/pty-host';
import type { PayloadOf } from '../src/shared/contract';
import { scenarioAgentCommand } from '../test/fixtures/scenario-agent/launch';
import type { Sshd } from '../test/support/sshd';
import { median, percentile, round1 } from './support/stats';

/** `remote`: a connected host on the test sshd. */
export async function benchFirstReply(sshd: Sshd, remote: Host, rounds: number): Promise<void> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'sbfr-')));
  const localFolder = join(root, 'work');
  mkdirSync(localFolder);
  const remoteFolder = join(sshd.home, `bench-first-reply-${randomBytes(4).toString('hex')}`);
  mkdirSync(remoteFolder);
  const uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
  chownSync(remoteFolder, uid, uid);
  const dataDir = join(root, 'data');
  mkdirSync(dataDir);
  const db = openDatabase(join(dataDir, 'switchboard.db'));
  const bus = new EventBus();
  const hosts = new Hosts();
  const registered = hosts.register(remote);
  const ptys = new PtyHost(hosts.local);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const acp = new AcpServices({ bus, store: { db, available: true }, settings: defaultsReader, ptys, hosts, options: { dataDir } }, { loginEnv: async () => env });
  // The first reply chunk and the turn's end of each session, as the window hears them.
  const waiting = new Map<string, { chunk: (at: number) => void; end: () => void; promptId: string | null; chunked: boolean }>();
  bus.connect((name, payload) => {
    if (name !== 'session.update') return;
    const p = payload as PayloadOf<'session.update'>;
    const w = waiting.get(p.sessionId);
    if (!w) return;
    for (const { event } of p.events) {
      if (!w.chunked && event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') {
        w.chunked = true;
        w.chunk(performance.now());
      }
      if (event.type === 'turn_end' && event.promptId === w.promptId) w.end();
    }
  });
  const firstReply = async (sessionId: string, text: string): Promise<number> => {
    const w = { chunk: (_at: number): void => undefined, end: (): void => undefined, promptId: null as string | null, chunked: false };
    const chunkAt = new Promise<number>((r) => (w.chunk = r));
    const ended = new Promise<void>((r) => (w.end = r));
    waiting.set(sessionId, w);
    const t = performance.now();
    w.promptId = acp.sessions.prompt(sessionId, [{ type: 'text', text }]).promptId;
    const ms = (await chunkAt) - t;
    await ended;
    waiting.delete(sessionId);
    return ms;
  };
  try {
    const agent = acp.agents.addCustom({ name: 'Scenario', ...scenarioAgentCommand(), env: {}, cwd: localFolder });
    const local = await acp.sessions.create({ agentId: agent.id, cwd: localFolder });
    const onHost = await acp.sessions.create({ agentId: agent.id, hostId: remote.id, cwd: remoteFolder });
    for (let i = 0; i < 3; i++) {
      await firstReply(local.id, `say warm ${i}`);
      await firstReply(onHost.id, `say warm ${i}`);
    }
    const localMs: number[] = [];
    const remoteMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      localMs.push(await firstReply(local.id, `say round ${i}`));
      remoteMs.push(await firstReply(onHost.id, `say round ${i}`));
    }
    const lm = median(localMs);
    const rm_ = median(remoteMs);
    console.log(
      `remote.first_reply_overhead_ms: ${round1(rm_ - lm)} ms (remote median ${round1(rm_)} ms, p95 ${round1(percentile(remoteMs, 95))}; ` +
        `floor, the same prompt to a local session: median ${round1(lm)} ms, p95 ${round1(percentile(localMs, 95))}; ratio ${round1(rm_ / lm)}; ${rounds} rounds) ` +
        '(goal ≤ 30 ms; to the chunk\'s event in main, the paint after it is the same for both)',
    );
  } finally {
    await acp.dispose();
    await ptys.dispose();
    registered.dispose();
    db.close();
    rmSync(remoteFolder, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  }
}
