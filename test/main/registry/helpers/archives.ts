import { createHash } from 'node:crypto';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Archive writers for tests: raw ustar and zip bytes, so hostile members (../, absolute paths,
 * escaping links, devices) can be written exactly as an attacker would.
 */
export type MemberType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'chardev' | 'fifo';

export interface Member {
  name: string;
  type?: MemberType;
  content?: string | Buffer;
  mode?: number;
  /** symlink/hardlink target */
  target?: string;
}

const TYPEFLAG: Record<MemberType, string> = { file: '0', hardlink: '1', symlink: '2', chardev: '3', dir: '5', fifo: '6' };

function octal(buf: Buffer, value: number, offset: number, length: number): void {
  buf.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'latin1');
}

function tarHeader(m: Member, size: number): Buffer {
  const h = Buffer.alloc(512);
  let name = m.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  h.write(name, 0, 100, 'utf8');
  const type = m.type ?? 'file';
  octal(h, m.mode ?? (type === 'dir' ? 0o755 : 0o644), 100, 8);
  octal(h, 0, 108, 8);
  octal(h, 0, 116, 8);
  octal(h, size, 124, 12);
  octal(h, 1_700_000_000, 136, 12);
  h.write(TYPEFLAG[type], 156, 1, 'latin1');
  if (m.target) h.write(m.target, 157, 100, 'utf8');
  h.write('ustar\0', 257, 6, 'latin1');
  h.write('00', 263, 2, 'latin1');
  if (prefix) h.write(prefix, 345, 155, 'utf8');
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'latin1');
  return h;
}

export function makeTar(members: Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const type = m.type ?? 'file';
    const body = type === 'file' ? Buffer.from(m.content ?? '') : Buffer.alloc(0);
    parts.push(tarHeader(m, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const makeTarGz = (members: Member[]): Buffer => gzipSync(makeTar(members));

/** A zip (deflated unless `store`), unix attributes so modes and symlinks survive. */
export function makeZip(members: Member[], options: { store?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const type = m.type ?? 'file';
    const name = Buffer.from(type === 'dir' && !m.name.endsWith('/') ? `${m.name}/` : m.name, 'utf8');
    const data = type === 'symlink' ? Buffer.from(m.target ?? '') : type === 'file' ? Buffer.from(m.content ?? '') : Buffer.alloc(0);
    const method = options.store || data.length === 0 ? 0 : 8;
    const stored = method === 8 ? deflateRawSync(data) : data;
    const crc = crc32(data);
    const ifmt = type === 'dir' ? 0o040000 : type === 'symlink' ? 0o120000 : type === 'chardev' ? 0o020000 : type === 'fifo' ? 0o010000 : 0o100000;
    const mode = ifmt | (m.mode ?? (type === 'dir' ? 0o755 : type === 'symlink' ? 0o777 : 0o644));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, stored);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + stored.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** An npm package tarball (members under package/) with its dist fields. */
export function makeNpmTarball(files: Record<string, { content: string; mode?: number }>): { tgz: Buffer; integrity: string; shasum: string } {
  const tgz = makeTarGz(Object.entries(files).map(([name, f]) => ({ name: `package/${name}`, content: f.content, mode: f.mode })));
  return {
    tgz,
    integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
    shasum: createHash('sha1').update(tgz).digest('hex'),
  };
}
