import { LOCAL_HOST_ID } from '../../../shared/contract/hosts';
import type { ImportSourceId } from '../../../shared/contract/history-import';
import type { Host } from '../host/host';
import { SkipFile, type FileIdentity, type LineSink } from './line-reader';
import { IMPORT_STORE_SERVICE, type RemoteListing, type RemoteRead, type RemoteSummary, type StoreCall, type StoreRoot } from './store-helper';

/**
 * The agents' stores of an SSH host, seen from here: what the host's helper (store-helper.ts) lists and reads
 * there. A session file of a host is known here by a key, its host's id and its path on the host (a local
 * file's key is its path), so that one table remembers where each import stopped, whatever host it is on.
 */

/** A connected SSH host whose stores can be imported. */
export interface ImportHost {
  id: string;
  /** What the user calls it (its alias, user@host:port). */
  label: string;
  host: Host;
}

/** How a file of a store reads what it gained (the local reader, or the replay of what a host's helper read). */
export type NewLinesReader = (path: string, offset: number, sink: LineSink, shouldStop: () => boolean) => FileIdentity & { offset: number };

/** The key a file of `hostId` is remembered by. */
export const fileKey = (hostId: string, path: string): string => (hostId === LOCAL_HOST_ID ? path : `${hostId}:${path}`);

/** The path on its host of a file remembered by `key`. */
export const hostPathOf = (hostId: string, key: string): string => (hostId === LOCAL_HOST_ID ? key : key.slice(hostId.length + 1));

function call(host: Host, c: StoreCall): Promise<unknown> {
  if (!host.helperCall) throw new Error(`the host ${host.id} has no helper to read its stores`);
  return host.helperCall(IMPORT_STORE_SERVICE, c);
}

export async function remoteRoots(host: Host, sources: ImportSourceId[]): Promise<StoreRoot[]> {
  return (await call(host, { m: 'roots', sources })) as StoreRoot[];
}

export async function remoteSummaries(host: Host, sources: ImportSourceId[]): Promise<RemoteSummary[]> {
  return (await call(host, { m: 'summary', sources })) as RemoteSummary[];
}

export async function remoteListings(host: Host, sources: ImportSourceId[]): Promise<RemoteListing[]> {
  return (await call(host, { m: 'list', sources })) as RemoteListing[];
}

/** All a file gained, as read on its host (in one or more answers). */
export interface FileRead extends Pick<RemoteRead, 'path' | 'start' | 'offset' | 'ino' | 'size' | 'mtimeMs' | 'skips' | 'error'> {
  lines: Array<{ text: string; lineNo: number; invalid: boolean }>;
}

/**
 * Reads what these files gained on the host, many files per call (a file larger than one answer spans
 * several), and hands each file over once it is read in full, in order. The next call is on its way while
 * the files of the last one are imported here. Stops between calls when asked.
 */
export async function readRemoteFiles(
  host: Host,
  wanted: ReadonlyArray<{ source: ImportSourceId; path: string; offset: number }>,
  onRead: (reads: FileRead[]) => void | Promise<void>,
  shouldStop: () => boolean,
): Promise<void> {
  let queue = [...wanted];
  let partial: FileRead | null = null;
  type Answer = { ok: true; v: RemoteRead[] } | { ok: false; e: unknown };
  // Settles with the answer or the error, never rejects (a call made ahead may fail before it is awaited).
  const ask = (): Promise<Answer> => {
    const files = queue.slice(0, 2000);
    return Promise.resolve()
      .then(() => call(host, { m: 'read', files }))
      .then((v) => ({ ok: true as const, v: v as RemoteRead[] }), (e: unknown) => ({ ok: false as const, e }));
  };
  let pending: Promise<Answer> | null = queue.length && !shouldStop() ? ask() : null;
  while (pending) {
    const answer = await pending;
    if (!answer.ok) throw answer.e;
    if (shouldStop()) return;
    const answers = answer.v;
    if (!answers.length) throw new Error('the host read nothing');
    const done: FileRead[] = [];
    for (const a of answers) {
      const lines = splitLines(a);
      let read: FileRead;
      if (partial && partial.path === a.path) {
        // The same file read on: replaced in between (another inode) is a file to read again at the next rescan.
        read = partial;
        if (a.error === undefined && a.ino !== read.ino) read.error = 'replaced while it was read: read again at the next import';
        const before = read.lines.at(-1)?.lineNo ?? 0;
        read.lines.push(...lines.map((l) => ({ ...l, lineNo: l.lineNo + before })));
        read.skips.push(...a.skips);
        read.offset = a.offset;
        read.size = a.size;
        read.mtimeMs = a.mtimeMs;
        if (a.error !== undefined) read.error ??= a.error;
        partial = null;
      } else {
        read = { path: a.path, start: a.start, offset: a.offset, ino: a.ino, size: a.size, mtimeMs: a.mtimeMs, lines, skips: [...a.skips], ...(a.error !== undefined ? { error: a.error } : {}) };
      }
      if (!a.done && a.error === undefined && read.error === undefined) {
        partial = read;
        continue;
      }
      done.push(read);
    }
    const answered = answers.length - (partial ? 1 : 0);
    queue = queue.slice(answered);
    if (partial) queue[0] = { ...queue[0]!, offset: partial.offset };
    pending = queue.length && !shouldStop() ? ask() : null;
    if (done.length) await onRead(done);
  }
}

function splitLines(a: RemoteRead): FileRead['lines'] {
  if (!a.lineNos.length) return [];
  const texts = Buffer.from(a.text).toString('utf8').split('\n');
  const invalid = new Set(a.invalid);
  return a.lineNos.map((lineNo, i) => ({ text: texts[i] ?? '', lineNo, invalid: invalid.has(i) }));
}

/** A reader that gives what the host read of a file, as the local reader gives it (the same skips and errors). */
export function replayReader(read: FileRead): NewLinesReader {
  return (_path, offset, sink) => {
    if (read.error !== undefined) throw new SkipFile(read.error);
    if (offset !== read.start) throw new SkipFile('changed while it was read: read again at the next import');
    for (const s of read.skips) sink.skip(s);
    for (const l of read.lines) sink.line(l.text, l.lineNo, l.invalid);
    return { ino: read.ino, size: read.size, mtimeMs: read.mtimeMs, offset: read.offset };
  };
}
