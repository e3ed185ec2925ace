import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Opening a file someone else named (a config file to import, a registry's file: URL) for reading. A plain
 * open of a FIFO waits for a writer, holding one of libuv's four threads: four such opens stall every
 * asynchronous file call of the process. So the open is O_NONBLOCK (a FIFO or device opens at once), the
 * descriptor is then fstat'ed, and anything but a regular file is refused before a byte is read. The
 * confined reader of agent sessions (confined-fs.ts) opens the same way, with its own path checks between
 * the open and the fstat, and reads through the same bounded read.
 */

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The file is not a regular file, or is larger than allowed. */
export class FileRefusal extends Error {
  constructor(
    readonly reason: 'not_regular' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** What a non-regular file is, in words. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** `path` opened for reading, without blocking, and checked to be a regular file; the caller closes it. */
export async function openRegularFile(path: string, options: { noFollow?: boolean } = {}): Promise<{ fh: FileHandle; info: Stats }> {
  const fh = await open(path, constants.O_RDONLY | O_NONBLOCK | (options.noFollow ? O_NOFOLLOW : 0));
  try {
    const info = await fh.stat();
    if (!info.isFile()) throw new FileRefusal('not_regular', `${path} is ${kindOf(info)}, not a regular file`);
    return { fh, info };
  } catch (e) {
    await fh.close().catch(() => {});
    throw e;
  }
}

/** The same open, synchronous (for readers that parse and store a file's lines in one go); the caller closes `fd`. */
export function openRegularFileSync(path: string, options: { noFollow?: boolean } = {}): { fd: number; info: Stats } {
  const fd = openSync(path, constants.O_RDONLY | O_NONBLOCK | (options.noFollow ? O_NOFOLLOW : 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new FileRefusal('not_regular', `${path} is ${kindOf(info)}, not a regular file`);
    return { fd, info };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Up to `maxBytes` of an open file; more throws `tooLarge()` (the size on disk is not trusted: it may grow). */
export async function readBounded(fh: FileHandle, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw tooLarge();
  }
  return Buffer.concat(chunks, total);
}

/** A regular file's bytes, at most `maxBytes`; a FIFO, device, socket or folder is refused at once. */
export async function readRegularFile(path: string, options: { maxBytes: number; noFollow?: boolean }): Promise<Buffer> {
  const { fh } = await openRegularFile(path, options);
  try {
    return await readBounded(fh, options.maxBytes, () => new FileRefusal('too_large', `${path} is larger than ${options.maxBytes} bytes`));
  } finally {
    await fh.close().catch(() => {});
  }
}
