import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { existsSync, realpathSync } from 'node:fs';
import { importSourceIds, importSourceNames, importTargetKey, parseImportTarget, unboundAgentId, type ImportProgress, type ImportSourceId, type ImportSourceSummary } from '../../../shared/contract/history-import';
import { LOCAL_HOST_ID } from '../../../shared/contract/hosts';
import type { Disposable } from '../base/lifecycle';
import type { EventBus } from '../base/event-bus';
import type { Router } from '../base/router';
import { prepared, type Db } from '../store/database';
import type { Statement } from 'better-sqlite3';
import type { Host, WatchEvent } from '../host/host';
import type { MessageLog } from '../store/message-log';
import { whenFolderAppears } from './folder-appears';
import { readNewLines, SkipFile } from './line-reader';
import { fileKey, hostPathOf, readRemoteFiles, remoteListings, remoteRoots, remoteSummaries, replayReader, type ImportHost, type NewLinesReader } from './remote-stores';
import type { SessionMeta } from './parsers/types';
import { findStoreFiles, listStore, storesOf, summarize, type DatabaseStore, type FoundFile, type JsonlStore, type Store } from './sources';
import { parseFile, writeMessages, type BlockBatch, type ParsedFile, type ParseJob, type WireBatch } from './parse-file';
import { isOwnSession, ownSessionOf } from './adoption';
import { importOpencode, summarizeOpencode } from './opencode-import';
import { ParseThreads } from './parse-pool';
import { ImportedFiles, type FileRow, type Identity } from './imported-files';

/**
 * Importing the agents' own histories into History. Each store is listed (no file is read unless it changed
 * since the last import: its inode, size and time are remembered with where the import stopped), new lines
 * are parsed by the agent's parser and written to the message log as the ACP messages a live session logs,
 * so History indexes and shows them like any other session. Nothing in an agent's store is written, moved or
 * locked; a session Switchboard ran itself (the agent's session id is one of Switchboard's) is left to
 * Switchboard's own record and not imported twice.
 */

export interface HistoryImportDeps {
  db(): Db;
  log(): MessageLog | null;
  bus?: EventBus;
  /** The user's home folder and environment, where the agents keep their stores. */
  home: string;
  env: Record<string, string | undefined>;
  /** The stores whose switch is on (setting history.importKeep: store keys, see importTargetKey). */
  keep(): readonly string[];
  /** The configured agent that can continue a session of this source (null: none is configured). */
  agentFor(source: ImportSourceId): string | null;
  /** Removes sessions from History (a file rewritten since its import is imported anew). */
  deleteSessions(ids: readonly string[]): void;
  /**
   * Starts a bulk write: what an import of at least BULK_MIN_BYTES writes is indexed in one pass after it
   * (HistoryService.bulkWrite), not message by message. Without it every batch is indexed as it is written.
   */
  bulk?(): Disposable;
  /** BULK_MIN_BYTES unless set (tests). */
  bulkMinBytes?: number;
  /** Watches a folder (the host's watch: changes, or "rescan" when it lost track; both mean: import again). */
  watch?: Host['watch'];
  /** The SSH hosts connected now, whose stores are listed and imported beside this machine's. */
  remoteHosts?(): Promise<ImportHost[]>;
  /** Most one read of OpenCode's database may take (tests; opencode-thread.ts). */
  opencodeLimitMs?: number;
}

/** What an import of a file reads (null: nothing, Switchboard logs that session itself), and the session it adds to. */
interface Prepared {
  job: ParseJob;
  sessionId: string | null;
}

/** Bytes of files the parsing threads read ahead of the writes (their messages wait in memory), and most files. */
const READ_AHEAD_BYTES = 32 * 1024 * 1024;
const READ_AHEAD_FILES = 512;
const GATHER_MS = 20;
/** Longest stretch of importing before the event loop gets a turn. */
const SLICE_MS = 50;
/**
 * New bytes from which an import is written as a bulk (indexed in one pass after it); below it, what it adds
 * (a watched session growing) is searchable as soon as it is written.
 */
export const BULK_MIN_BYTES = 4 * 1024 * 1024;
/**
 * A kept-up store of this machine whose watcher reported which files changed is imported from those files
 * alone (a 20,000-file store is not listed for a line appended to one); it is listed in full at least this
 * often all the same (a watcher may drop events, see local-watch.ts).
 */
const FULL_LISTING_EVERY_MS = 60_000;
/** Files reported changed beyond which a store is listed instead. */
const MAX_REPORTED = 1_000;
/** Skips reported in full (the count goes on). */
const MAX_SKIPS_SHOWN = 200;

const idle = (): ImportProgress => ({
  running: false,
  sources: [],
  filesDone: 0,
  filesTotal: 0,
  bytesDone: 0,
  bytesTotal: 0,
  sessions: 0,
  keptAsText: 0,
  skipped: [],
  skippedCount: 0,
  cancelled: false,
  error: null,
});

const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Where the import of a file goes on from: where it stopped, unless the file was replaced or cut short since. */
const resumeOffset = (row: FileRow | undefined, file: FoundFile): number => (row && row.ino === file.ino && file.size >= row.offset && !row.skipped ? row.offset : 0);

type Plan = { store: JsonlStore; files: FoundFile[]; rows: Map<string, FileRow>; host?: ImportHost } | { store: DatabaseStore; asked: boolean };

export class HistoryImportService implements Disposable {
  private progress: ImportProgress = idle();
  private cancelRequested = false;
  private run: Promise<void> | null = null;
  /** Stores (keys) asked for while a run was going: run again after it. */
  private again = new Set<string>();
  /** By store key. */
  private readonly watches = new Map<string, Disposable>();
  private debounce: NodeJS.Timeout | null = null;
  private disposed = false;
  /** Per local store (key), what the next run reads: 'all' (or nothing known) lists it, a set reads those files. */
  private readonly reported = new Map<string, Set<string> | 'all'>();
  /** When each local store (key) was last listed in full. */
  private readonly listedAt = new Map<string, number>();
  /** The parsing threads of the run going on, if it has them. */
  private thread: ParseThreads | null = null;
  /** The run going on is large: its messages are written as compressed blocks (ParseJob.blocks). */
  private blocks = false;
  private readonly files: ImportedFiles;
  /** Stores (keys) the user asked to import (not the switch nor the start): a store that failed is tried again. */
  private readonly asked = new Set<string>();

  constructor(private readonly deps: HistoryImportDeps) {
    this.files = new ImportedFiles(deps.db);
  }

  private stores(): Store[] {
    return storesOf(this.deps.home, this.deps.env);
  }

  private store(source: ImportSourceId): Store {
    return this.stores().find((s) => s.source === source)!;
  }

  // ───────────── scan ─────────────

  /** Imported sessions whose tool has no configured agent yet get the agent that is configured now. */
  private bindAgents(): void {
    for (const source of importSourceIds) {
      const agent = this.deps.agentFor(source);
      if (agent) this.sql('UPDATE sessions SET agent_id = ? WHERE imported_from = ? AND agent_id = ?').run(agent, source, unboundAgentId(source));
    }
  }

  /** Sessions in History imported from each store, by store key. */
  private importedCounts(): Map<string, number> {
    const rows = this.sql('SELECT imported_from AS source, host_id AS hostId, count(*) AS n FROM sessions WHERE imported_from IS NOT NULL AND deleted_at IS NULL GROUP BY imported_from, host_id').all() as Array<{ source: ImportSourceId; hostId: string; n: number }>;
    return new Map(rows.map((r) => [importTargetKey(r.source, r.hostId), r.n]));
  }

  /** This machine's stores (OpenCode's database is read in a thread, within a time limit). */
  async scan(): Promise<ImportSourceSummary[]> {
    this.bindAgents();
    const keep = new Set(this.deps.keep());
    const imported = this.importedCounts();
    return Promise.all(
      this.stores().map(async (store) => {
        const base = { source: store.source, key: store.source, hostId: LOCAL_HOST_ID, hostLabel: 'This machine', name: store.name, location: store.root, imported: imported.get(store.source) ?? 0, keepImporting: keep.has(store.source) };
        if (store.kind === 'opencode-db') return { ...base, ...(await summarizeOpencode(store.root, this.deps.opencodeLimitMs)) };
        const listing = listStore(store);
        return { ...base, found: !listing.missing, ...summarize(listing.files) };
      }),
    );
  }

  /** This machine's stores, then each connected SSH host's (listed there by its helper; a host that fails to answer is left out). */
  async scanAll(): Promise<ImportSourceSummary[]> {
    const local = await this.scan();
    const keep = new Set(this.deps.keep());
    const imported = this.importedCounts();
    const hosts = (await this.deps.remoteHosts?.()) ?? [];
    const remote = await Promise.all(
      hosts.map(async (h) => {
        const found = await remoteSummaries(h.host, [...importSourceIds]).catch(() => []);
        return found
          .filter((f) => !f.unsupported)
          .map((f): ImportSourceSummary => {
            const key = importTargetKey(f.source, h.id);
            const found = { found: f.found, sessions: f.sessions, bytes: f.bytes, from: f.from, to: f.to };
            return { source: f.source, key, hostId: h.id, hostLabel: h.label, name: importSourceNames[f.source], location: f.root, ...found, imported: imported.get(key) ?? 0, keepImporting: keep.has(key) };
          });
      }),
    );
    return [...local, ...remote.flat()];
  }

  // ───────────── runs ─────────────

  status(): ImportProgress {
    return this.progress;
  }

  /**
   * Starts importing what is new in these stores (keys: importTargetKey; a run already going picks them up after
   * it); `asked`: the user asked (a store that failed is tried again), not the switch or the start.
   */
  start(sources: readonly string[], asked = true): ImportProgress {
    for (const s of sources) {
      this.reported.set(s, 'all');
      if (asked) this.asked.add(s);
    }
    return this.begin(sources);
  }

  private begin(sources: readonly string[]): ImportProgress {
    if (this.run) {
      for (const s of sources) this.again.add(s);
      return this.progress;
    }
    this.cancelRequested = false;
    this.bindAgents();
    this.progress = { ...idle(), running: true, sources: [...sources] };
    this.emit();
    this.run = this.importAll(sources)
      .catch((e: unknown) => {
        this.progress = { ...this.progress, error: `The import stopped: ${e instanceof Error ? e.message : String(e)}` };
      })
      .finally(() => {
        this.run = null;
        this.progress = { ...this.progress, running: false, cancelled: this.cancelRequested };
        this.emit();
        const again = [...this.again];
        this.again.clear();
        if (again.length && !this.cancelRequested && !this.disposed) this.begin(again);
      });
    return this.progress;
  }

  /** Resolves when the current run (if any) has ended. */
  async settled(): Promise<void> {
    while (this.run) await this.run;
  }

  cancel(): ImportProgress {
    if (this.run) this.cancelRequested = true;
    // (Its read of a long file stops at once; what it parsed and was not written yet is not kept.)
    this.thread?.dispose();
    this.again.clear();
    return this.progress;
  }

  private emit(): void {
    this.deps.bus?.emit('historyImport.progress', this.progress);
  }

  private skip(path: string, reason: string): void {
    this.progress.skippedCount++;
    if (this.progress.skipped.length < MAX_SKIPS_SHOWN) this.progress.skipped.push({ path, reason });
  }

  private async importAll(keys: readonly string[]): Promise<void> {
    const plans: Plan[] = [];
    let newBytes = 0;
    const targets = keys.map(parseImportTarget).filter((t) => t !== null);
    for (const { source } of targets.filter((t) => t.hostId === LOCAL_HOST_ID)) {
      const store = this.store(source);
      const asked = this.asked.delete(source);
      if (store.kind === 'opencode-db') {
        if (existsSync(store.root)) plans.push({ store, asked });
        continue;
      }
      // (A local store's key is its source.)
      const reported = this.reported.get(source);
      this.reported.delete(source);
      const listed = this.listedAt.get(source);
      const found = reported instanceof Set && listed !== undefined && Date.now() - listed < FULL_LISTING_EVERY_MS ? findStoreFiles(store, reported) : null;
      if (!found) this.listedAt.set(source, Date.now());
      const listing = found ? { files: found, skipped: [] } : listStore(store);
      for (const s of listing.skipped) this.skip(s.path, s.reason);
      const changed = this.changedFiles(listing.files, this.files.identitiesOf(store.source, found?.map((f) => f.path)));
      newBytes += changed.newBytes;
      if (changed.files.length) plans.push({ store, files: changed.files, rows: this.files.rowsOf(store.source, false, changed.files.map((f) => f.path)) });
    }
    newBytes += await this.planRemote(targets.filter((t) => t.hostId !== LOCAL_HOST_ID), plans);
    this.emit();
    const large = newBytes >= (this.deps.bulkMinBytes ?? BULK_MIN_BYTES);
    const bulk = large ? this.deps.bulk?.() : undefined;
    this.blocks = large;
    // A large import of this machine's files is read and parsed in other threads while this one writes.
    let thread: ParseThreads | null = null;
    if (large && !this.disposed && plans.some((p) => 'files' in p && !p.host)) {
      try {
        thread = ParseThreads.start();
      } catch (e) {
        console.error('history import: no parsing threads, parsing here:', e);
      }
    }
    this.thread = thread;
    try {
      await this.importPlans(plans, thread);
    } finally {
      this.thread = null;
      this.blocks = false;
      thread?.dispose();
      bulk?.dispose();
    }
  }

  /** The files whose identity (inode, size, time) differs from what was imported (only those are read), and the bytes they gained. */
  private changedFiles(listed: readonly FoundFile[], known: Map<string, Identity>): { files: FoundFile[]; newBytes: number } {
    const files: FoundFile[] = [];
    let newBytes = 0;
    this.progress.filesTotal += listed.length;
    for (const f of listed) {
      this.progress.bytesTotal += f.size;
      const row = known.get(f.path);
      if (row && row[0] === f.ino && row[1] === f.size && row[2] === f.mtimeMs) {
        this.progress.filesDone++;
        this.progress.bytesDone += f.size;
        continue;
      }
      files.push(f);
      newBytes += row && row[0] === f.ino && f.size >= row[3] ? f.size - row[3] : f.size;
    }
    return { files, newBytes };
  }

  /**
   * Lists the stores of SSH hosts on their hosts (one call per host) and plans to read the files that changed
   * since their last import; returns the bytes they gained.
   */
  private async planRemote(targets: ReadonlyArray<{ source: ImportSourceId; hostId: string }>, plans: Plan[]): Promise<number> {
    if (!targets.length) return 0;
    let newBytes = 0;
    const hosts = (await this.deps.remoteHosts?.()) ?? [];
    for (const hostId of new Set(targets.map((t) => t.hostId))) {
      const host = hosts.find((h) => h.id === hostId);
      const sources = targets.filter((t) => t.hostId === hostId).map((t) => t.source);
      if (!host) {
        this.skip(hostId, 'the host is not connected: its stores are imported once it is');
        continue;
      }
      let listings;
      try {
        listings = await remoteListings(host.host, sources);
      } catch (e) {
        this.skip(host.label, `its stores could not be listed (${e instanceof Error ? e.message : String(e)})`);
        continue;
      }
      for (const listing of listings) {
        const local = this.store(listing.source);
        if (listing.unsupported || local.kind !== 'jsonl') {
          if (listing.unsupported) this.skip(`${host.label}:${listing.root}`, listing.unsupported);
          continue;
        }
        for (const sk of listing.skipped) this.skip(`${host.label}:${sk.path}`, sk.reason);
        const changed = this.changedFiles(listing.files.map((f) => ({ ...f, path: fileKey(hostId, f.path) })), this.files.identitiesOf(listing.source));
        newBytes += changed.newBytes;
        // The host's store, with the parser of this machine (the same agent writes the same format).
        if (changed.files.length) plans.push({ store: { ...local, root: listing.root }, files: changed.files, rows: this.files.rowsOf(listing.source, false, changed.files.map((f) => f.path)), host });
      }
    }
    return newBytes;
  }

  /** Reads what the files of a host's store gained, on the host, many files per call, and imports each as it comes. */
  private async importRemote(store: JsonlStore, files: FoundFile[], rows: Map<string, FileRow>, host: ImportHost, touched: Set<string>): Promise<void> {
    const byKey = new Map(files.map((f) => [f.path, f]));
    const wanted = files.map((f) => {
      const row = rows.get(f.path);
      // A linked or adopted file is Switchboard's own session: nothing of it is read.
      return { source: store.source, path: hostPathOf(host.id, f.path), offset: isOwnSession(this.deps.db(), row) ? f.size : resumeOffset(row, f) };
    });
    const db = this.deps.db();
    await readRemoteFiles(
      host.host,
      wanted,
      async (reads) => {
        this.deps.log()?.flush();
        db.transaction(() => {
          for (const r of reads) {
            const file = byKey.get(fileKey(host.id, r.path));
            if (file) this.importOne(store, file, rows.get(file.path), touched, replayReader(r), host.id);
          }
        })();
        this.progress.sessions = touched.size;
        this.emit();
        await yieldToLoop();
      },
      () => this.cancelRequested,
    );
  }

  private async importPlans(plans: readonly Plan[], thread: ParseThreads | null): Promise<void> {
    let lastEmit = Date.now();
    const touched = new Set<string>();
    // This machine's stores go through the parsing threads as one queue (the threads are not left idle between stores).
    const local = (p: Plan): p is Extract<Plan, { files: FoundFile[] }> => 'files' in p && !p.host;
    const threaded = thread && !thread.gone ? thread : null;
    if (threaded) {
      const files = plans.filter(local).flatMap(({ store, files, rows }) => files.map((file) => ({ store, file, rows })));
      await this.importThreaded(files, touched, threaded);
    }
    for (const plan of plans) {
      if (this.cancelRequested) break;
      if (threaded && local(plan)) continue;
      if (!('files' in plan)) {
        await this.importOpencode(plan.store, touched, plan.asked);
        continue;
      }
      const { store, files, rows } = plan;
      if (plan.host) {
        try {
          await this.importRemote(store, files, rows, plan.host, touched);
        } catch (e) {
          this.skip(plan.host.label, `its ${store.name} store could not be read (${e instanceof Error ? e.message : String(e)}): the rest is imported at the next run`);
        }
        continue;
      }
      const db = this.deps.db();
      for (let i = 0; i < files.length && !this.cancelRequested; ) {
        // Files are imported in slices of ~50 ms, each one transaction (what a file adds and where its import
        // stopped commit together); the event loop runs between slices.
        const sliceEnd = Date.now() + SLICE_MS;
        this.deps.log()?.flush();
        db.transaction(() => {
          do {
            this.importOne(store, files[i]!, rows.get(files[i]!.path), touched);
            i++;
          } while (i < files.length && Date.now() < sliceEnd && !this.cancelRequested);
        })();
        if (Date.now() - lastEmit > 100) {
          lastEmit = Date.now();
          this.progress.sessions = touched.size;
          this.emit();
        }
        await yieldToLoop();
      }
    }
    this.progress.sessions = touched.size;
    if (touched.size) this.deps.bus?.emit('history.changed', { sessionIds: [...touched], reason: 'import' });
  }

  /** Imports a file that changed since its last import (or was never imported), read and parsed here. */
  private importOne(store: JsonlStore, file: FoundFile, row: FileRow | undefined, touched: Set<string>, reader: NewLinesReader = readNewLines, hostId = LOCAL_HOST_ID): void {
    this.settle(store, file, row, touched, () => {
      const prep = this.prepareFile(store, file, row, hostId);
      return prep && this.applyParsed(store, file, row, prep, parseFile(prep.job, reader, () => this.cancelRequested), hostId);
    });
  }

  /** Runs the import of one file (`work`: the session it added to), and counts it done; a file that fails is remembered with why. */
  private settle(store: JsonlStore, file: FoundFile, row: FileRow | undefined, touched: Set<string>, work: () => string | null): void {
    try {
      const sessionId = work();
      if (sessionId) touched.add(sessionId);
    } catch (e) {
      const reason = e instanceof SkipFile ? e.reason : `could not be imported (${e instanceof Error ? e.message : String(e)})`;
      this.skip(file.path, reason);
      this.files.save({ ...(row ?? this.files.newRow(file.path, store.source)), ino: file.ino, size: file.size, mtime_ms: file.mtimeMs, skipped: reason });
    }
    this.progress.filesDone++;
    this.progress.bytesDone += file.size;
  }

  /**
   * Imports the files of this machine's stores with their reading and parsing done in `thread`, up to READ_AHEAD_BYTES
   * ahead of the writes here, which take the results in the order the files were sent, in ~50 ms transactions.
   * A file the thread could not parse (it ended) is parsed here.
   */
  private async importThreaded(files: ReadonlyArray<{ store: JsonlStore; file: FoundFile; rows: Map<string, FileRow> }>, touched: Set<string>, thread: ParseThreads): Promise<void> {
    const queue: Array<{ store: JsonlStore; file: FoundFile; rows: Map<string, FileRow>; prep: Prepared | null; parsed: ParsedFile | null; error: unknown; ready: boolean }> = [];
    let next = 0;
    let ahead = 0;
    let wake: (() => void) | null = null;
    const fill = (): void => {
      while (next < files.length && ahead < READ_AHEAD_BYTES && queue.length < READ_AHEAD_FILES && !this.cancelRequested) {
        const { store, file, rows } = files[next++]!;
        const slot: (typeof queue)[number] = { store, file, rows, prep: null, parsed: null, error: null, ready: true };
        queue.push(slot);
        try {
          slot.prep = this.prepareFile(store, file, rows.get(file.path), LOCAL_HOST_ID);
        } catch (e) {
          slot.error = e;
        }
        if (!slot.prep || thread.gone) continue;
        const bytes = Math.max(0, file.size - slot.prep.job.offset);
        ahead += bytes;
        slot.ready = false;
        const done = (): void => {
          slot.ready = true;
          ahead -= bytes;
          wake?.();
        };
        thread.parse(slot.prep.job).then((parsed) => ((slot.parsed = parsed), done()), done);
      }
    };
    const db = this.deps.db();
    let lastEmit = Date.now();
    fill();
    // A transaction waits up to GATHER_MS for more results (small files come faster than one commit each).
    let gatherUntil = 0;
    while (queue.length && !this.cancelRequested) {
      let files = 0;
      let bytes = 0;
      for (; files < queue.length && queue[files]!.ready; files++) bytes += queue[files]!.file.size;
      const few = files < queue.length && files < 64 && bytes < 4 * 1024 * 1024;
      if (files === 0 || (few && (gatherUntil ||= Date.now() + GATHER_MS) > Date.now())) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (files) timer = setTimeout(resolve, Math.max(1, gatherUntil - Date.now()));
        });
        clearTimeout(timer);
        wake = null;
        continue;
      }
      gatherUntil = 0;
      const sliceEnd = Date.now() + SLICE_MS;
      this.deps.log()?.flush();
      db.transaction(() => {
        do {
          const { store, file, rows, prep, parsed, error } = queue.shift()!;
          const row = rows.get(file.path);
          this.settle(store, file, row, touched, () => {
            if (error) throw error;
            return prep && this.applyParsed(store, file, row, prep, parsed ?? parseFile(prep.job, readNewLines, () => this.cancelRequested), LOCAL_HOST_ID);
          });
          fill();
        } while (queue.length && queue[0]!.ready && Date.now() < sliceEnd && !this.cancelRequested);
      })();
      if (Date.now() - lastEmit > 100) {
        lastEmit = Date.now();
        this.progress.sessions = touched.size;
        this.emit();
      }
      await yieldToLoop();
    }
  }

  /** A statement of the current store, prepared once. */
  private sql(text: string): Statement {
    return prepared(this.deps.db(), text);
  }

  /**
   * What the import of `file` reads: from where its last import stopped, with the state it left, unless the
   * file was replaced or cut short since (then its session is imported afresh). Null: nothing is read (a session
   * Switchboard ran itself, or has run since it was imported, which it logs itself).
   */
  private prepareFile(store: JsonlStore, file: FoundFile, row: FileRow | undefined, hostId: string): Prepared | null {
    if (row && isOwnSession(this.deps.db(), row)) {
      this.files.save({ ...row, ino: file.ino, size: file.size, mtime_ms: file.mtimeMs, linked: 1 });
      return null;
    }
    const job: ParseJob = { source: store.source, path: hostPathOf(hostId, file.path), offset: 0, state: null, mtimeMs: file.mtimeMs, blocks: this.blocks };
    if (row && row.ino === file.ino && file.size >= row.offset && !row.skipped) {
      return { job: { ...job, offset: row.offset, state: row.state ?? this.files.stateOf(file.path) }, sessionId: row.session_id };
    }
    // Replaced or cut short since it was imported: what it holds now is imported afresh.
    if (row?.session_id) this.deps.deleteSessions([row.session_id]);
    return { job, sessionId: null };
  }

  /** Writes what `file` gained (`parsed`) and where its import stopped; returns the session it added to, if any. */
  private applyParsed(store: JsonlStore, file: FoundFile, row: FileRow | undefined, prep: Prepared, parsed: ParsedFile, hostId: string): string | null {
    for (const reason of parsed.skips) this.skip(file.path, reason);
    if (parsed.refused !== undefined) throw new SkipFile(parsed.refused);
    if (parsed.failed !== undefined) throw new Error(parsed.failed);
    this.progress.keptAsText += parsed.keptAsText;
    const base = { ...(row ?? this.files.newRow(file.path, store.source)), ino: parsed.ino, size: file.size, mtime_ms: file.mtimeMs, skipped: null };
    if (this.cancelRequested && parsed.offset < parsed.size) {
      // Stopped part way: nothing of this pass is kept, so the next run reads it again from the same place.
      return null;
    }
    let sessionId = prep.sessionId;
    if (!sessionId) {
      if (!parsed.conversation) {
        // No conversation yet (a session opened and left): remembered, and imported once it has one.
        this.files.save({ ...base, offset: 0, state: '{}', session_id: null });
        return null;
      }
      const own = ownSessionOf(this.deps.db(), parsed.agentSessionId);
      if (own) {
        this.files.save({ ...base, offset: parsed.offset, state: '{}', session_id: own, linked: 1 });
        return null;
      }
      sessionId = this.createSession(store.source, parsed.agentSessionId, parsed.meta, parsed.firstTs, parsed.lastTs, dirname(hostPathOf(hostId, file.path)), hostId);
    }
    this.append(sessionId, parsed.blocks ?? parsed.wire, parsed.lastTs, parsed.meta.title);
    this.files.save({ ...base, offset: parsed.offset, state: parsed.state, session_id: sessionId });
    return sessionId;
  }

  /** A session in History for an imported one; it runs on `hostId` when it is continued. */
  private createSession(source: ImportSourceId, agentSessionId: string, meta: SessionMeta, firstTs: number | null, lastTs: number | null, fallbackCwd: string, hostId = LOCAL_HOST_ID): string {
    const id = randomUUID();
    const first = firstTs ?? Date.now();
    const last = lastTs ?? first;
    this
      .sql(
        `INSERT INTO sessions (id, agent_id, acp_session_id, cwd, title, status, created_at, updated_at, imported_from, host_id)
         VALUES (?, ?, ?, ?, ?, 'closed', ?, ?, ?, ?)`,
      )
      .run(id, this.deps.agentFor(source) ?? unboundAgentId(source), agentSessionId, meta.cwd ?? fallbackCwd, meta.title ?? null, first, last, source, hostId);
    return id;
  }

  /** Appends a session's new messages to the log, and what they say of it (its last activity, its title). */
  private append(sessionId: string, messages: WireBatch | BlockBatch, lastTs: number | null, title: string | undefined): void {
    const log = this.deps.log();
    if (!log) throw new Error('the store is not available');
    writeMessages(log, sessionId, messages);
    if (lastTs !== null) this.sql('UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?').run(lastTs, sessionId);
    if (title) this.sql('UPDATE sessions SET title = ? WHERE id = ?').run(title, sessionId);
  }

  private async importOpencode(store: DatabaseStore, touched: Set<string>, asked: boolean): Promise<void> {
    const db = this.deps.db();
    const deps = {
      db: () => db,
      files: this.files,
      skip: (path: string, reason: string) => this.skip(path, reason),
      count: (total: number, done: number) => ((this.progress.filesTotal += total), (this.progress.filesDone += done)),
      cancelled: () => this.cancelRequested,
      createSession: this.createSession.bind(this),
      append: this.append.bind(this),
      transaction: (fn: () => void) => (this.deps.log()?.flush(), db.transaction(fn)()),
      limitMs: this.deps.opencodeLimitMs,
    };
    await importOpencode(store, deps, touched, !asked);
  }

  // ───────────── keeping up ─────────────

  /** Applies the switches: watches the stores that are on (and imports what is new in them), stops the others. */
  keepUp(): void {
    if (this.disposed) return;
    const keep = new Set(this.deps.keep());
    for (const [source, w] of this.watches) {
      if (!keep.has(source)) {
        w.dispose();
        this.watches.delete(source);
      }
    }
    for (const key of keep) {
      if (this.watches.has(key)) continue;
      const target = parseImportTarget(key);
      if (!target) continue;
      if (target.hostId !== LOCAL_HOST_ID) {
        this.watchRemote(key, target.source, target.hostId);
        continue;
      }
      const source = target.source;
      const store = this.store(source);
      // A folder (or OpenCode's database) that is a link, dotfiles kept elsewhere, is watched where it leads: a watcher does not follow it.
      const at = store.kind === 'opencode-db' && existsSync(store.root) ? realpathSync(store.root) : store.root;
      const folder = store.kind === 'opencode-db' ? dirname(at) : at;
      const root = existsSync(folder) ? realpathSync(folder) : folder;
      if (!this.deps.watch) {
        // No watcher here: picked up at the next start.
        this.start([source], false);
        continue;
      }
      if (!existsSync(root)) {
        // Not there yet (the agent never ran here): looked for until it is made, then watched.
        this.watches.set(
          source,
          whenFolderAppears(root, () => {
            this.watches.delete(source);
            this.keepUp();
          }),
        );
        continue;
      }
      const watching = this.deps.watch(root, (event) => this.changed(source, event));
      this.watches.set(source, { dispose: () => void watching.then((w) => w.dispose(), () => {}) });
      // The rescan follows the watch's start: a change made before it is found by the scan, any later one is reported.
      watching.then(
        () => !this.disposed && this.start([source], false),
        (e: unknown) => {
          this.skip(root, `not watched (${e instanceof Error ? e.message : String(e)}): new sessions are picked up at the next start`);
          this.start([source], false);
        },
      );
    }
  }

  /**
   * Keeps a host's store imported: watched on the host (its helper's watch), and imported now. A host not
   * connected is tried again when it connects (hostChanged).
   */
  private watchRemote(key: string, source: ImportSourceId, hostId: string): void {
    let gone = false;
    let inner: Promise<Disposable> | null = null;
    const entry: Disposable = {
      dispose: () => {
        gone = true;
        void inner?.then((w) => w.dispose(), () => {});
      },
    };
    this.watches.set(key, entry);
    void (async () => {
      const host = ((await this.deps.remoteHosts?.().catch(() => [])) ?? []).find((h) => h.id === hostId);
      if (gone || this.disposed) return;
      if (!host) {
        if (this.watches.get(key) === entry) this.watches.delete(key);
        return;
      }
      const [root] = await remoteRoots(host.host, [source]).catch(() => []);
      if (gone || this.disposed) return;
      if (root?.exists) {
        inner = host.host.watch(root.root, () => this.changed(key));
        await inner.catch((e: unknown) => this.skip(`${host.label}:${root.root}`, `not watched (${e instanceof Error ? e.message : String(e)}): new sessions are picked up at the next rescan`));
      }
      if (!gone && !this.disposed) this.start([key], false);
    })();
  }

  /** A host connected (or its connection went): its stores that are kept up are watched anew and rescanned. */
  hostChanged(hostId: string): void {
    for (const [key, w] of this.watches) {
      if (parseImportTarget(key)?.hostId !== hostId) continue;
      w.dispose();
      this.watches.delete(key);
    }
    this.keepUp();
  }

  /** Something changed in a store that is kept up: import it shortly (changes come in bursts). */
  private changed(source: string, event?: WatchEvent): void {
    // What a local watcher reported is kept, so that only those files are read (a host's store is listed).
    const reported = this.reported.get(source) ?? new Set<string>();
    if (event && reported !== 'all' && event.kind === 'changes' && reported.size + event.changes.length <= MAX_REPORTED) {
      for (const c of event.changes) reported.add(c.path);
      this.reported.set(source, reported);
    } else {
      this.reported.set(source, 'all');
    }
    this.again.add(source);
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      const sources = [...this.again];
      this.again.clear();
      if (sources.length && !this.disposed) this.begin(sources);
    }, 150);
  }

  register(router: Router): void {
    router.handle('historyImport.scan', async () => ({ sources: await this.scanAll() }));
    router.handle('historyImport.start', ({ sources }) => ({ progress: this.start(sources) }));
    router.handle('historyImport.cancel', () => ({ progress: this.cancel() }));
    router.handle('historyImport.status', () => ({ progress: this.status() }));
  }

  dispose(): void {
    this.disposed = true;
    this.cancelRequested = true;
    this.thread?.dispose();
    if (this.debounce) clearTimeout(this.debounce);
    for (const w of this.watches.values()) w.dispose();
    this.watches.clear();
  }
}
