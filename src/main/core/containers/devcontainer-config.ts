/**
 * A repository's dev container configuration: found (`.devcontainer/devcontainer.json`, then
 * `.devcontainer.json`), parsed (JSONC; an error names the file, line and column) and summarised as what it
 * will run, for the user to see before the first start. What of it would lower the fence is judged by
 * fence-policy.ts.
 */
import path from 'node:path';
import type { ConfinedFiles } from '../host/host';
import { JsoncError, parseJsonc } from './jsonc';

export const CONFIG_PLACES = ['.devcontainer/devcontainer.json', '.devcontainer.json'] as const;
const MAX_CONFIG_BYTES = 512 * 1024;

export type DevcontainerJson = Record<string, unknown>;

export interface RepoConfig {
  /** The file's absolute path (inside the folder). */
  file: string;
  json: DevcontainerJson;
}

/** A configuration that cannot be used, said with the file (and the line and column of a syntax error). */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    detail: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** The folder's dev container configuration, or null when it has none. */
export async function readRepoConfig(files: ConfinedFiles, folder: string): Promise<RepoConfig | null> {
  for (const place of CONFIG_PLACES) {
    const file = path.posix.join(folder, place);
    const found = await files.readFileIfExists(file, { maxBytes: MAX_CONFIG_BYTES });
    if (!found) continue;
    return { file, json: parseConfig(file, found.data.toString('utf8')) };
  }
  return null;
}

export function parseConfig(file: string, text: string): DevcontainerJson {
  let json: unknown;
  try {
    json = parseJsonc(text);
  } catch (e) {
    if (e instanceof JsoncError) throw new ConfigError(file, `syntax error at ${e.message}`, e.line, e.column);
    throw e;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError(file, 'is not a JSON object');
  return json as DevcontainerJson;
}

export const LIFECYCLE_COMMANDS = ['initializeCommand', 'onCreateCommand', 'updateContentCommand', 'postCreateCommand', 'postStartCommand', 'postAttachCommand'] as const;

export interface ConfigSummary {
  /** What the container is made from. */
  source: { kind: 'image'; image: string } | { kind: 'dockerfile'; dockerfile: string; context: string } | { kind: 'compose'; files: string[] } | { kind: 'none' };
  /** Feature ids (each installs software into the image, as root, while it is built). */
  features: string[];
  /** Lifecycle commands by name, each as the command line(s) it runs. `initializeCommand` runs on the host. */
  commands: Array<{ name: string; command: string }>;
}

/** What the configuration will run, for the user to read (strings bounded). */
export function summarizeConfig(config: RepoConfig): ConfigSummary {
  const j = config.json;
  const dir = path.posix.dirname(config.file);
  const build = isRecord(j.build) ? j.build : {};
  const dockerfile = str(build.dockerfile) ?? str(j.dockerFile);
  let source: ConfigSummary['source'] = { kind: 'none' };
  if (j.dockerComposeFile !== undefined) source = { kind: 'compose', files: list(j.dockerComposeFile) };
  else if (dockerfile) source = { kind: 'dockerfile', dockerfile: path.posix.resolve(dir, dockerfile), context: path.posix.resolve(dir, str(build.context) ?? str(j.context) ?? '.') };
  else if (str(j.image)) source = { kind: 'image', image: bound(str(j.image)!) };
  const features = isRecord(j.features) ? Object.keys(j.features).map(bound) : [];
  const commands: ConfigSummary['commands'] = [];
  for (const name of LIFECYCLE_COMMANDS) {
    const value = j[name];
    if (value === undefined) continue;
    if (isRecord(value)) for (const [k, v] of Object.entries(value)) commands.push({ name: `${name}.${k}`, command: commandText(v) });
    else commands.push({ name, command: commandText(value) });
  }
  return { source, features, commands };
}

export function commandText(value: unknown): string {
  if (typeof value === 'string') return bound(value);
  if (Array.isArray(value)) return bound(value.map((v) => JSON.stringify(String(v))).join(' '));
  return bound(JSON.stringify(value) ?? String(value));
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function list(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).map((x) => bound(String(x)));
}

function bound(s: string): string {
  return s.length > 500 ? `${s.slice(0, 500)}…` : s;
}
