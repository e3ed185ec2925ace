import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, readlink, realpath, symlink } from 'node:fs/promises';
import { posix, join, relative, isAbsolute, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, Unpack, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { ArchiveRefusedError, CancelledError, errorMessage, throwIfAborted } from './errors';

export interface ExtractLimits {
  /** Sum of the sizes of the files in the archive. */
  maxBytes: number;
  /** Entries of any kind. */
  maxEntries: number;
}

export const defaultExtractLimits: ExtractLimits = { maxBytes: 2 * 1024 ** 3, maxEntries: 20_000 };

export type ArchiveFormat = 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz' | 'tar.zst' | 'zip';

/** Recognises the archive by its first bytes (URLs lie more often than magic numbers). */
export async function detectFormat(file: string): Promise<ArchiveFormat> {
  const fh = await open(file, 'r');
  const head = Buffer.alloc(512);
  let n: number;
  try {
    ({ bytesRead: n } = await fh.read(head, 0, 512, 0));
  } finally {
    await fh.close();
  }
  const b = head.subarray(0, n);
  if (b[0] === 0x1f && b[1] === 0x8b) return 'tar.gz';
  if (b[0] === 0x50 && b[1] === 0x4b && (b[2] === 0x03 || b[2] === 0x05) && (b[3] === 0x04 || b[3] === 0x06)) return 'zip';
  if (b.subarray(0, 3).toString('latin1') === 'BZh') return 'tar.bz2';
  if (b.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'tar.xz';
  if (b.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) return 'tar.zst';
  if (n >= 262 && b.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  throw new ArchiveRefusedError(n === 0 ? 'the download is empty' : 'not a tar.gz, tar.bz2, tar.xz, tar.zst, tar or zip archive');
}

/**
 * Normalises an archive member name to a path relative to the target folder, or refuses it.
 * Refused: absolute paths (/x, C:\x, \\server), any ".." segment, backslashes, NUL.
 */
export function safeMemberPath(name: string): string {
  if (name.includes('\0')) throw new ArchiveRefusedError(`an entry name contains a NUL byte`);
  if (name.includes('\\')) throw new ArchiveRefusedError(`"${name}" contains a backslash`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw new ArchiveRefusedError(`"${name}" is an absolute path`);
  const segments = name.split('/');
  if (segments.includes('..')) throw new ArchiveRefusedError(`"${name}" escapes the target folder (..)`);
  return segments.filter((s) => s !== '' && s !== '.').join('/');
}

/** A symlink target must stay inside the target folder, judged from the link's own folder. */
export function checkSymlinkTarget(memberPath: string, target: string): void {
  if (target === '' || target.includes('\0')) throw new ArchiveRefusedError(`the symlink "${memberPath}" has an empty target`);
  if (target.startsWith('/') || target.includes('\\') || /^[a-zA-Z]:/.test(target)) {
    throw new ArchiveRefusedError(`the symlink "${memberPath}" points to an absolute path (${target})`);
  }
  const resolved = posix.normalize(posix.join(posix.dirname(memberPath), target));
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new ArchiveRefusedError(`the symlink "${memberPath}" points outside the target folder (${target})`);
  }
}

type MemberKind = 'file' | 'dir' | 'symlink' | 'hardlink';

/** Validates members one by one: caps, duplicates, and writes through symlinks named earlier. */
class MemberChecker {
  private entries = 0;
  private bytes = 0;
  private readonly symlinks = new Set<string>();
  private readonly files = new Set<string>();

  constructor(private readonly limits: ExtractLimits) {}

  check(kind: MemberKind, rawName: string, size: number, linkTarget?: string): string {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) throw new ArchiveRefusedError(`it has more than ${this.limits.maxEntries} entries`);
    const path = safeMemberPath(rawName);
    if (path === '') {
      if (kind === 'dir') return path;
      throw new ArchiveRefusedError(`an entry has an empty name`);
    }
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.symlinks.has(prefix)) throw new ArchiveRefusedError(`"${path}" would be written through the symlink "${prefix}"`);
    }
    if (kind === 'file') {
      this.bytes += size;
      if (this.bytes > this.limits.maxBytes) throw new ArchiveRefusedError(`it unpacks to more than ${this.limits.maxBytes} bytes`);
    }
    if (kind !== 'dir') {
      if (this.files.has(path) || this.symlinks.has(path)) throw new ArchiveRefusedError(`"${path}" appears twice`);
      this.files.add(path);
    }
    if (kind === 'symlink') {
      checkSymlinkTarget(path, linkTarget ?? '');
      this.symlinks.add(path);
    }
    if (kind === 'hardlink') {
      let target: string;
      try {
        target = safeMemberPath(linkTarget ?? '');
      } catch {
        throw new ArchiveRefusedError(`the hard link "${path}" points outside the target folder (${linkTarget ?? ''})`);
      }
      if (!this.files.has(target) || this.symlinks.has(target)) {
        throw new ArchiveRefusedError(`the hard link "${path}" points to "${target}", which is not a file of the archive`);
      }
    }
    return path;
  }
}

const tarKind = (entry: ReadEntry): MemberKind => {
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
      return 'file';
    case 'Directory':
    case 'GNUDumpDir':
      return 'dir';
    case 'SymbolicLink':
      return 'symlink';
    case 'Link':
      return 'hardlink';
    case 'CharacterDevice':
    case 'BlockDevice':
    case 'FIFO':
      throw new ArchiveRefusedError(`"${entry.path}" is a device or FIFO (${entry.type})`);
    default:
      throw new ArchiveRefusedError(`"${entry.path}" has an unsupported type (${entry.type})`);
  }
};

const damaged = (e: unknown): Error =>
  e instanceof ArchiveRefusedError || e instanceof CancelledError ? e : new ArchiveRefusedError(`it is damaged or incomplete (${errorMessage(e)})`);

/** First pass over a tar: every member checked before anything is written. */
function checkTar(file: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const checker = new MemberChecker(limits);
    let failed: Error | null = null;
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (!failed) {
          try {
            checker.check(tarKind(entry), entry.path, entry.size, entry.linkpath);
          } catch (e) {
            failed = e as Error;
            source.destroy();
            parser.abort(failed);
          }
        }
        entry.resume();
      },
    });
    const source = createReadStream(file);
    const onAbort = () => {
      failed = new CancelledError();
      source.destroy();
      parser.abort(failed);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let done = false;
    const finish = (e?: unknown) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      if (failed) reject(failed);
      else if (e) reject(damaged(e));
      else resolve();
    };
    parser.on('error', (e: unknown) => finish(e));
    parser.on('abort', (e: unknown) => finish(e));
    parser.on('end', () => finish());
    source.on('error', (e) => finish(e));
    source.pipe(parser as unknown as NodeJS.WritableStream);
  });
}

function extractTar(file: string, dest: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const checker = new MemberChecker(limits);
    let failed: Error | null = null;
    let done = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = e;
      source.destroy();
      queueMicrotask(() => unpack.abort(e));
    };
    const unpack = new Unpack({
      cwd: dest,
      strict: true,
      preserveOwner: false,
      // Defence in depth: the same checks as the first pass; a refusal stops the extraction.
      filter: (_path, entry) => {
        if (failed) return false;
        try {
          const e = entry as ReadEntry;
          checker.check(tarKind(e), e.path, e.size, e.linkpath);
          return true;
        } catch (e) {
          fail(e as Error);
          return false;
        }
      },
    });
    const source = createReadStream(file);
    const onAbort = () => fail(new CancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (e?: unknown) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      if (failed) reject(failed);
      else if (e) reject(damaged(e));
      else resolve();
    };
    unpack.on('error', (e: unknown) => finish(e));
    unpack.on('close', () => finish());
    source.on('error', (e) => finish(e));
    source.pipe(unpack as unknown as NodeJS.WritableStream);
  });
}

async function extractTarFile(file: string, dest: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  await checkTar(file, limits, signal);
  throwIfAborted(signal);
  await extractTar(file, dest, limits, signal);
}

async function decompressWith(tool: string, file: string, out: string, maxBytes: number, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(tool, ['-dc', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let tooBig = false;
    let written = 0;
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        written += chunk.length;
        // A tar of maxBytes of files carries headers and padding too: allow some slack.
        if (written > maxBytes + 64 * 1024 * 1024) {
          tooBig = true;
          child.kill('SIGKILL');
          cb(new Error('too big'));
          return;
        }
        cb(null, chunk);
      },
    });
    const piped = pipeline(child.stdout, counter, createWriteStream(out)).catch(() => undefined);
    child.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? new ArchiveRefusedError(`it needs the "${tool}" program to unpack, which is not installed`)
          : e,
      );
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      void piped.then(() => {
        if (signal?.aborted) reject(new CancelledError());
        else if (tooBig) reject(new ArchiveRefusedError(`it unpacks to more than ${maxBytes} bytes`));
        else if (code === 0) resolve();
        else reject(new ArchiveRefusedError(`it is damaged or incomplete (${tool}: ${stderr.trim() || `exit ${code}`})`));
      });
    });
  });
}

interface ZipMember {
  entry: yauzl.Entry;
  kind: MemberKind;
  path: string;
  mode: number;
}

const S_IFMT = 0o170000;

function zipKind(entry: yauzl.Entry): { kind: MemberKind; mode: number } {
  const madeByUnix = entry.versionMadeBy >> 8 === 3;
  const unixMode = madeByUnix ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const type = unixMode & S_IFMT;
  const isDirName = entry.fileName.endsWith('/');
  if (type === 0o120000) return { kind: 'symlink', mode: 0o777 };
  if (type === 0o040000 || (type === 0 && isDirName)) return { kind: 'dir', mode: 0o755 };
  if (type === 0o100000 || type === 0) return { kind: 'file', mode: unixMode & 0o777 || 0o644 };
  throw new ArchiveRefusedError(`"${entry.fileName}" is a device, FIFO or socket`);
}

async function readSmall(zip: yauzl.ZipFile, entry: yauzl.Entry, max: number): Promise<string> {
  if (entry.uncompressedSize > max) throw new ArchiveRefusedError(`the symlink "${entry.fileName}" has an over-long target`);
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function extractZip(file: string, dest: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false });
  } catch (e) {
    throw new ArchiveRefusedError(`it is damaged or incomplete (${errorMessage(e)})`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) throw new ArchiveRefusedError(`it has more than ${limits.maxEntries} entries`);
    const checker = new MemberChecker(limits);
    const members: ZipMember[] = [];
    try {
      for await (const entry of zip.eachEntry()) {
        throwIfAborted(signal);
        if (entry.isEncrypted()) throw new ArchiveRefusedError(`"${entry.fileName}" is encrypted`);
        if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
          throw new ArchiveRefusedError(`"${entry.fileName}" uses an unsupported compression method (${entry.compressionMethod})`);
        }
        const { kind, mode } = zipKind(entry);
        const target = kind === 'symlink' ? await readSmall(zip, entry, 4096) : undefined;
        const path = checker.check(kind, entry.fileName, entry.uncompressedSize, target);
        members.push({ entry, kind, path, mode });
        if (kind === 'symlink') (members.at(-1) as ZipMember & { target?: string }).target = target;
      }
    } catch (e) {
      if (e instanceof ArchiveRefusedError || e instanceof CancelledError) throw e;
      const msg = errorMessage(e);
      if (/^(absolute path|invalid relative path|invalid characters)/.test(msg)) throw new ArchiveRefusedError(`unsafe entry name (${msg})`);
      throw new ArchiveRefusedError(`it is damaged or incomplete (${msg})`);
    }
    for (const m of members) {
      throwIfAborted(signal);
      if (m.path === '') continue;
      const out = join(dest, ...m.path.split('/'));
      if (m.kind === 'dir') {
        await mkdir(out, { recursive: true });
        continue;
      }
      await mkdir(join(out, '..'), { recursive: true });
      if (m.kind === 'symlink') {
        await symlink((m as ZipMember & { target: string }).target, out);
        continue;
      }
      try {
        const stream = await zip.openReadStreamPromise(m.entry);
        await pipeline(stream, createWriteStream(out, { mode: m.mode, flags: 'wx' }));
      } catch (e) {
        throw new ArchiveRefusedError(`it is damaged or incomplete ("${m.path}": ${errorMessage(e)})`);
      }
    }
  } finally {
    zip.close();
  }
}

/**
 * After extraction: every symlink must resolve inside the folder (a chain of links can escape where
 * each link alone does not), and set-uid/set-gid bits are dropped.
 */
async function verifyTree(dest: string, limits: ExtractLimits): Promise<{ entries: number; bytes: number }> {
  const root = await realpath(dest);
  let entries = 0;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      const st = await lstat(p);
      entries += 1;
      if (st.isSymbolicLink()) {
        let real: string | null = null;
        try {
          real = await realpath(p);
        } catch {
          // Dangling: judge by the link text alone (it was checked lexically already).
          const target = await readlink(p);
          if (isAbsolute(target)) throw new ArchiveRefusedError(`the symlink "${relative(root, p)}" points outside the target folder`);
        }
        if (real !== null && real !== root && !real.startsWith(root + sep)) {
          throw new ArchiveRefusedError(`the symlink "${relative(root, p)}" points outside the target folder`);
        }
      } else if (st.isDirectory()) {
        await walk(p);
      } else if (st.isFile()) {
        bytes += st.size;
        if (st.mode & 0o6000) await chmod(p, st.mode & 0o777);
      } else {
        throw new ArchiveRefusedError(`"${relative(root, p)}" is a special file`);
      }
    }
  };
  await walk(root);
  if (entries > limits.maxEntries + 1) throw new ArchiveRefusedError(`it has more than ${limits.maxEntries} entries`);
  if (bytes > limits.maxBytes) throw new ArchiveRefusedError(`it unpacks to more than ${limits.maxBytes} bytes`);
  return { entries, bytes };
}

/**
 * Extracts an untrusted archive into `dest` (an empty folder the caller deletes on failure). Every
 * member is checked before anything is written: no absolute paths, no "..", no symlinks or hard
 * links leading outside, no devices/FIFOs, caps on entries and unpacked bytes.
 */
export async function extractArchive(
  file: string,
  dest: string,
  options: { limits?: ExtractLimits; signal?: AbortSignal } = {},
): Promise<{ format: ArchiveFormat; entries: number; bytes: number }> {
  const limits = options.limits ?? defaultExtractLimits;
  const format = await detectFormat(file);
  await mkdir(dest, { recursive: true });
  if (format === 'zip') {
    await extractZip(file, dest, limits, options.signal);
  } else if (format === 'tar' || format === 'tar.gz') {
    await extractTarFile(file, dest, limits, options.signal);
  } else {
    const tool = format === 'tar.bz2' ? 'bzip2' : format === 'tar.xz' ? 'xz' : 'zstd';
    const plain = `${file}.tar`;
    await decompressWith(tool, file, plain, limits.maxBytes, options.signal);
    await extractTarFile(plain, dest, limits, options.signal);
  }
  return { format, ...(await verifyTree(dest, limits)) };
}
