/**
 * History → Import of the agents' stores on an SSH host, against a real OpenSSH server (test/support/sshd.ts):
 * a Claude Code store in the remote user's own HOME is listed and read there by the host's helper; only the
 * listing and the new lines travel. The host's sessions keep their host; a line appended on the host is
 * picked up by a rescan that reads only it; links out of the store, FIFOs, a 100 MB line and invalid UTF-8
 * get the reasons they get on this machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importTargetKey, parseImportTarget } from '../../../src/shared/contract/history-import';
import { SETTINGS } from '../../../src/shared/contract/settings';
import { HistoryImportService } from '../../../src/main/core/history-import/import-service';
import { IMPORT_STORE_SERVICE, storeHelper, type RemoteListing, type RemoteRead } from '../../../src/main/core/history-import/store-helper';
import { helperBundle } from '../../../src/main/core/host/ssh/helper-bundle';
import { SshHost } from '../../../src/main/core/host/ssh/ssh-host';
import { tempDir } from '../../support/app-server';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { createStore, type TestStore } from '../history/acp';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the remote import tests: ${skip}`);

const FIXTURE = join(__dirname, '../../fixtures/agent-histories/claude-code-0.16.0/.claude/projects');
const HOST_ID = 'ssh:sbtest';
const KEY = `claude-code@${HOST_ID}`;

describe.skipIf(skip !== null)('History → Import from an SSH host', () => {
  let sshd: Sshd;
  let runtimeDir: string;
  let host: SshHost;
  let uid: number;
  let t: TestStore;
  let importer: HistoryImportService;
  /** This test's project folder in the remote user's Claude Code store, and what lies outside the store. */
  let project: string;
  let outside: string;
  let localHome: string;
  let keep: string[] = [];

  const owned = (path: string): void => lchownSync(path, uid, uid);
  const search = (query: string) => t.history.search({ query, limit: 50, perSession: 10 }).hits;
  const run = async (keys: string[]) => {
    importer.start(keys);
    await importer.settled();
    return importer.status();
  };

  beforeAll(async () => {
    sshd = await startSshd();
    await sshd.setKnownHosts('right');
    runtimeDir = await mkdtemp(join(tmpdir(), 'sbrt-'));
    host = new SshHost({ id: HOST_ID, destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance: randomBytes(6).toString('hex') });
    const r = await host.connect(() => {});
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
  }, 90_000);

  afterAll(async () => {
    await host?.dispose();
    await sshd?.stop();
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    t = await createStore();
    const tag = randomBytes(4).toString('hex');
    // The remote user's own store (other tests' agents may keep theirs there too: this test looks at its own folder).
    const store = join(sshd.home, '.claude', 'projects');
    for (const dir of [join(sshd.home, '.claude'), store]) {
      if (!existsSync(dir)) mkdirSync(dir, { mode: 0o755 });
      owned(dir);
    }
    project = join(store, `-sbimport-${tag}`);
    cpSync(join(FIXTURE, readdirSync(FIXTURE)[0]!), project, { recursive: true });
    execFileSync('chown', ['-R', `${uid}:${uid}`, project]);
    outside = join(sshd.home, `outside-${tag}`);
    mkdirSync(outside);
    owned(outside);
    localHome = tempDir('sb-import-local-home-');
    importer = new HistoryImportService({
      db: () => t.db,
      log: () => t.log,
      home: localHome,
      env: {},
      keep: () => keep,
      agentFor: () => null,
      deleteSessions: (ids) => t.history.delete(ids),
      remoteHosts: async () => [{ id: HOST_ID, label: 'sbtest', host }],
    });
  });

  afterEach(() => {
    keep = [];
    importer?.dispose();
    t?.close();
    for (const dir of [project, outside, `${project}-linked`, localHome]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sessionFile = (): string => join(project, readdirSync(project).find((f) => f.endsWith('.jsonl'))!);
  // Other tests may keep stores in the remote user's HOME too: this one looks at its own file's session.
  const importedRow = () => t.db.prepare('SELECT session_id, offset, size FROM imported_files WHERE path = ?').get(`${HOST_ID}:${sessionFile()}`) as { session_id: string; offset: number; size: number } | undefined;
  /** Every entry of this test's store folder: name, size, times and mode. */
  const storeState = () =>
    readdirSync(project).map((name) => {
      const st = lstatSync(join(project, name));
      return { name, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, mode: st.mode, ino: st.ino };
    });
  const messagesOf = (sessionId: string): number => (t.db.prepare('SELECT count(*) AS n FROM acp_messages WHERE session_id = ?').get(sessionId) as { n: number }).n;

  it('lists the host’s store beside this machine’s, imports it there, searchable by a word of a tool output; the session keeps its host and folder', async () => {
    const found = await importer.scanAll();
    const local = found.find((s) => s.key === 'claude-code')!;
    expect(local).toMatchObject({ hostId: 'local', found: false });
    const remote = found.find((s) => s.key === KEY)!;
    expect(remote).toMatchObject({ source: 'claude-code', hostId: HOST_ID, hostLabel: 'sbtest', found: true, location: join(sshd.home, '.claude/projects') });
    expect(remote.sessions).toBeGreaterThanOrEqual(1);
    expect(remote.bytes).toBeGreaterThan(5000);
    // OpenCode's database is not read on a host: not listed there.
    expect(found.filter((s) => s.hostId === HOST_ID).map((s) => s.source)).not.toContain('opencode');

    const before = storeState();
    const progress = await run([KEY]);
    expect(progress).toMatchObject({ running: false, error: null });
    // Read-only towards the agent: nothing in its store was written, moved or touched.
    expect(storeState()).toEqual(before);
    // Remembered by host and path (the same path on this machine is another file).
    const row = importedRow()!;
    expect(row.session_id).toBeTruthy();
    const session = t.history.list({ limit: 1000, offset: 0 }).sessions.find((s) => s.id === row.session_id)!;
    expect(session).toMatchObject({ importedFrom: 'claude-code', hostId: HOST_ID, cwd: '/tmp/sb-fixture-claude-code-I5Zjap', turnCount: 2 });
    expect(search('marmalade').map((h) => h.sessionId)).toContain(session.id);
    expect((await importer.scanAll()).find((s) => s.key === KEY)!.imported).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('a line appended on the host is picked up by a rescan, which reads only it', async () => {
    await run([KEY]);
    const file = sessionFile();
    const first = importedRow()!;
    expect(first.offset).toBe(first.size);
    const before = messagesOf(first.session_id);
    await run([KEY]);
    expect(messagesOf(first.session_id)).toBe(before);
    const sessionId = JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!).sessionId as string;
    const word = `kestrel${randomBytes(3).toString('hex')}`;
    const record = JSON.stringify({ type: 'user', sessionId, cwd: '/tmp/x', timestamp: new Date().toISOString(), message: { role: 'user', content: `and the ${word} ledger` } });
    // The CLI on the host goes on: a complete line, and one it is still writing.
    appendFileSync(file, `${record}\n{"type":"user","sessionId":"${sessionId}","mess`);
    const picked = await run([KEY]);
    expect(picked.error).toBeNull();
    expect(search(word).map((h) => [h.kind, h.sessionId])).toEqual([['prompt', first.session_id]]);
    // Read from where it stopped, up to the last complete line (the unfinished one is left for later).
    const after = importedRow()!;
    expect(after.offset).toBe(first.size + record.length + 1);
    expect(after.session_id).toBe(first.session_id);
  }, 60_000);

  it('kept up per host: the host’s store is watched there, and a line the CLI adds on the host is imported as it is written', async () => {
    keep = [KEY];
    importer.keepUp();
    await expect.poll(() => search('marmalade').length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect((await importer.scanAll()).find((s) => s.key === KEY)!.keepImporting).toBe(true);
    const file = sessionFile();
    const sessionId = JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!).sessionId as string;
    const word = `osprey${randomBytes(3).toString('hex')}`;
    appendFileSync(file, `${JSON.stringify({ type: 'user', sessionId, cwd: '/tmp/x', timestamp: new Date().toISOString(), message: { role: 'user', content: `the ${word} checklist` } })}\n`);
    await expect.poll(() => search(word).length, { timeout: 30_000 }).toBe(1);
    // This machine's store is another switch.
    expect((await importer.scanAll()).find((s) => s.key === 'claude-code')!.keepImporting).toBe(false);
  }, 90_000);

  it('hostile host stores: links out of the store, a FIFO, a 100 MB line and invalid UTF-8 get their reasons, and the import goes on', async () => {
    writeFileSync(join(outside, 'id_rsa.jsonl'), `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'SECRET-KEY-MATERIAL' } })}\n`);
    owned(join(outside, 'id_rsa.jsonl'));
    symlinkSync(join(outside, 'id_rsa.jsonl'), join(project, 'link.jsonl'));
    owned(join(project, 'link.jsonl'));
    symlinkSync(outside, `${project}-linked`);
    owned(`${project}-linked`);
    execFileSync('mkfifo', [join(project, 'fifo.jsonl')]);
    owned(join(project, 'fifo.jsonl'));
    const prompt = (sid: string, text: string) => JSON.stringify({ type: 'user', sessionId: sid, cwd: '/w', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });
    const big = join(project, 'big.jsonl');
    // More than one answer of the helper holds: a file read across calls, the long line passed over in them.
    writeFileSync(big, `${prompt('big', 'before the flood of albatross')}\n`);
    for (let i = 0; i < 30; i++) appendFileSync(big, `${prompt('big', `filler ${i} ${'z'.repeat(100 * 1024)}`)}\n`);
    appendFileSync(big, `{"type":"user","x":"${'y'.repeat(100 * 1024 * 1024)}"}\n`);
    appendFileSync(big, `${prompt('big', 'after the flood of cormorant')}\n`);
    owned(big);
    const latin1 = join(project, 'latin1.jsonl');
    writeFileSync(latin1, Buffer.concat([Buffer.from(prompt('l1', 'caf').slice(0, -3)), Buffer.from([0xe9]), Buffer.from(' puffin"}}\n')]));
    owned(latin1);

    const progress = await run([KEY]);
    expect(progress.error).toBeNull();
    const reasons = progress.skipped.map((s) => `${s.path.split('/').pop()}: ${s.reason}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^link\.jsonl: a symbolic link/),
        expect.stringMatching(/-linked: a symbolic link/),
        expect.stringMatching(/^fifo\.jsonl: a FIFO/),
        expect.stringMatching(/^big\.jsonl: line \d+ .*over the 32 MB a line may have: skipped/),
        expect.stringMatching(/^latin1\.jsonl: line 1 .*not valid UTF-8/),
      ]),
    );
    // Skips say which host.
    expect(progress.skipped.find((s) => s.path.endsWith('link.jsonl'))!.path).toMatch(/^sbtest:\//);
    expect(search('SECRET').length).toBe(0);
    expect(search('albatross').length).toBe(1);
    expect(search('cormorant').length).toBe(1);
    expect(search('puffin').length).toBe(1);
    expect(search('marmalade').length).toBeGreaterThan(0);
  }, 180_000);
});

describe('the host side of the import (store-helper)', () => {
  it('reads only session files of a store: no path outside it, through "..", or through a folder that is a link', async () => {
    const home = tempDir('sb-import-helper-home-');
    try {
      const store = join(home, '.claude/projects');
      mkdirSync(join(store, 'p'), { recursive: true });
      const line = `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'hello' } })}\n`;
      writeFileSync(join(store, 'p/s.jsonl'), line);
      writeFileSync(join(home, 'secret.jsonl'), line);
      symlinkSync(home, join(store, 'q'));
      const helper = storeHelper(home, {});
      const read = async (path: string) => ((await helper({ m: 'read', files: [{ source: 'claude-code', path, offset: 0 }] })) as RemoteRead[])[0]!;
      expect(await read(join(store, 'p/s.jsonl'))).toMatchObject({ done: true, offset: line.length, lineNos: [1] });
      expect((await read(`${store}/p/../../../secret.jsonl`)).error).toMatch(/not a session file|not in/);
      expect((await read(join(home, 'secret.jsonl'))).error).toMatch(/not in Claude Code's store/);
      expect((await read(join(store, 'q/secret.jsonl'))).error).toMatch(/symbolic link/);
      expect((await read(join(store, 'p/s.txt'))).error).toMatch(/not a session file/);
      // A listing stays within one answer: what is cut is said.
      for (let i = 0; i < 1100; i++) symlinkSync(join(home, 'secret.jsonl'), join(store, 'p', `l${i}.jsonl`));
      const [listing] = (await helper({ m: 'list', sources: ['claude-code'] })) as RemoteListing[];
      expect(listing!.files.map((f) => f.path)).toEqual([join(store, 'p/s.jsonl')]);
      expect(listing!.skipped).toHaveLength(1001);
      expect(listing!.skipped.at(-1)!.reason).toBe('and 101 more entries left out');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the SSH helper that reads the stores', () => {
  it('is bundled without the contract’s validation library (it is copied to every host)', async () => {
    const { source } = await helperBundle();
    expect(source.toString('utf8')).toContain(IMPORT_STORE_SERVICE);
    expect(source.toString('utf8')).not.toContain('ZodError');
  }, 60_000);
});

describe('store keys (what Import, its switches and its runs name a store by)', () => {
  it('names this machine’s store by the agent, a host’s by the agent and the host; anything else is refused', () => {
    expect(importTargetKey('codex', 'local')).toBe('codex');
    expect(importTargetKey('codex', 'ssh:dev@box:2222')).toBe('codex@ssh:dev@box:2222');
    expect(parseImportTarget('codex')).toEqual({ source: 'codex', hostId: 'local' });
    expect(parseImportTarget('codex@ssh:dev@box:2222')).toEqual({ source: 'codex', hostId: 'ssh:dev@box:2222' });
    for (const bad of ['cursor', 'codex@local', 'codex@ssh:-oProxyCommand=x', 'codex@', '@ssh:box']) expect(parseImportTarget(bad), bad).toBeNull();
    expect(SETTINGS['history.importKeep'].schema.safeParse(['claude-code', 'claude-code@ssh:sbtest']).success).toBe(true);
    expect(SETTINGS['history.importKeep'].schema.safeParse(['claude-code@ssh:-oProxyCommand=x']).success).toBe(false);
  });
});
