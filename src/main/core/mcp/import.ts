import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import { mcpServerInputSchema, type McpServerInputParsed, type McpServerView } from '../../../shared/contract/mcp';
import { FileRefusal, readRegularFile } from '../platform/regular-file';

/** Config files are small; anything larger is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Variables and headers whose values are stored encrypted when imported. */
const SECRET_NAME = /(key|token|secret|passw(or)?d|credential|auth|cookie|pat)$|^authorization$|_pat_|api[-_]?key/i;
export const looksSecret = (name: string): boolean => SECRET_NAME.test(name);

/** MCP config files of desktop tools, where they are on this platform (the `mcpServers` shape). */
export function knownConfigFiles(home = homedir(), platform = process.platform, env = process.env): Array<{ label: string; path: string }> {
  const appData = env.APPDATA ?? join(home, 'AppData', 'Roaming');
  const claudeDesktop =
    platform === 'darwin'
      ? join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
      : platform === 'win32'
        ? join(appData, 'Claude', 'claude_desktop_config.json')
        : join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude', 'claude_desktop_config.json');
  return [
    { label: 'Claude Desktop', path: claudeDesktop },
    { label: 'Claude Code (user)', path: join(home, '.claude.json') },
    { label: 'Cursor', path: join(home, '.cursor', 'mcp.json') },
    { label: 'Windsurf', path: join(home, '.codeium', 'windsurf', 'mcp_config.json') },
    { label: 'Gemini CLI', path: join(home, '.gemini', 'settings.json') },
  ];
}

/** A folder means its project config: `.mcp.json`, else Cursor's or VS Code's project file. */
export function configFileOf(path: string): string {
  if (!existsSync(path)) throw new IpcFailure('not_found', `no such file or folder: ${path}`);
  if (!statSync(path).isDirectory()) return path;
  for (const rel of ['.mcp.json', join('.cursor', 'mcp.json'), join('.vscode', 'mcp.json')]) {
    const candidate = join(path, rel);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new IpcFailure('not_found', `${path} has no .mcp.json (nor .cursor/mcp.json, .vscode/mcp.json)`);
}

async function readSmall(path: string): Promise<Buffer> {
  try {
    return await readRegularFile(path, { maxBytes: MAX_CONFIG_BYTES });
  } catch (e) {
    if (e instanceof FileRefusal) {
      throw new IpcFailure('invalid_params', e.reason === 'too_large' ? `${path} is larger than ${MAX_CONFIG_BYTES / 1024} KiB: not an MCP config file` : e.message);
    }
    throw new IpcFailure('not_found', `cannot read ${path}: ${(e as Error).message}`);
  }
}

export interface ParsedEntry {
  name: string;
  input: McpServerInputParsed | null;
  problem: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const pairsOf = (v: unknown, what: string): Array<{ name: string; value: string; secret: boolean }> => {
  if (v === undefined || v === null) return [];
  if (!isRecord(v)) throw new Error(`${what} is not an object`);
  return Object.entries(v).map(([name, value]) => {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new Error(`${what}.${name} is not a string`);
    return { name, value: String(value), secret: looksSecret(name) };
  });
};

/** One entry of an `mcpServers` (or VS Code `servers`) object, in the shapes the common tools write. */
function entryOf(name: string, raw: unknown): ParsedEntry {
  try {
    if (!isRecord(raw)) throw new Error('not an object');
    const declared = typeof raw.type === 'string' ? raw.type.toLowerCase() : null;
    const url = typeof raw.url === 'string' ? raw.url : typeof raw.serverUrl === 'string' ? raw.serverUrl : typeof raw.httpUrl === 'string' ? raw.httpUrl : null;
    let candidate: unknown;
    if (typeof raw.command === 'string' && (declared === null || declared === 'stdio')) {
      if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string'))) throw new Error('args is not a list of strings');
      candidate = { type: 'stdio', name, command: raw.command, args: raw.args ?? [], env: pairsOf(raw.env, 'env') };
    } else if (url !== null) {
      const type = declared === 'sse' ? 'sse' : declared === null || ['http', 'streamable-http', 'streamablehttp', 'streamable_http'].includes(declared) ? 'http' : null;
      if (!type) throw new Error(`unknown transport type "${String(raw.type)}"`);
      candidate = { type, name, url, headers: pairsOf(raw.headers, 'headers') };
    } else {
      throw new Error('neither a command nor a URL');
    }
    const parsed = mcpServerInputSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}`);
    }
    return { name, input: parsed.data, problem: null };
  } catch (e) {
    return { name, input: null, problem: (e as Error).message };
  }
}

/** Reads a config file or a project folder's config; nothing is stored. `digest` names the bytes read. */
export async function readMcpConfig(path: string): Promise<{ file: string; digest: string; entries: ParsedEntry[] }> {
  const file = configFileOf(path);
  const bytes = await readSmall(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new IpcFailure('invalid_params', `${file} is not valid JSON: ${(e as Error).message}`);
  }
  const servers = isRecord(json) ? (json.mcpServers ?? json.servers) : undefined;
  if (!isRecord(servers)) throw new IpcFailure('invalid_params', `${file} has no "mcpServers" object`);
  return { file, digest, entries: Object.entries(servers).map(([name, raw]) => entryOf(name, raw)) };
}

/** How an entry would be stored, shown before anything is: secret values hidden. */
export function previewView(input: McpServerInputParsed): McpServerView {
  const pairs = (ps: Array<{ name: string; value?: string | undefined; secret: boolean }>) => ps.map((p) => ({ name: p.name, value: p.secret ? null : (p.value ?? ''), secret: p.secret }));
  return input.type === 'stdio'
    ? { id: '', type: 'stdio', name: input.name, command: input.command, args: input.args, env: pairs(input.env), enabled: input.enabled, agents: input.agents }
    : { id: '', type: input.type, name: input.name, url: input.url, headers: pairs(input.headers), enabled: input.enabled, agents: input.agents };
}
