import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentRuleFile } from '../../../../shared/contract/permissions';

/** What identifies an agent's family, and where its home is. */
export interface AgentFacts {
  id: string;
  name: string;
  command: string;
  args: readonly string[];
  registryId: string | null;
  /** Its HOME, when Switchboard sets one for it. */
  home: string | null;
}

/**
 * Where agents keep permission rules of their own, relative to the project folder and to their home. An
 * agent answers a request these rules cover itself: the request never reaches Switchboard.
 */
const FAMILIES: Array<{ test: RegExp; project: string[]; user: string[] }> = [
  { test: /claude/i, project: ['.claude/settings.local.json', '.claude/settings.json'], user: ['.claude/settings.json', '.claude/settings.local.json'] },
  { test: /qwen/i, project: ['.qwen/settings.json'], user: ['.qwen/settings.json'] },
  // Gemini CLI: `tools.allowed` runs those tools without asking.
  { test: /gemini/i, project: ['.gemini/settings.json'], user: ['.gemini/settings.json'] },
];

const MAX_BYTES = 1024 * 1024;

/** The rule files of this agent's family, for this folder, that exist. */
export function agentRuleFiles(agent: AgentFacts, folder: string): AgentRuleFile[] {
  const id = [agent.name, agent.command, ...agent.args, agent.registryId ?? ''].join(' ');
  const family = FAMILIES.find((f) => f.test.test(id));
  if (!family) return [];
  const home = agent.home ?? homedir();
  const candidates = [
    ...family.project.map((p) => ({ path: join(folder, p), level: 'project' as const })),
    ...family.user.map((p) => ({ path: join(home, p), level: 'user' as const })),
  ];
  const seen = new Set<string>();
  const files: AgentRuleFile[] = [];
  for (const c of candidates) {
    if (seen.has(c.path)) continue;
    seen.add(c.path);
    if (!isFile(c.path)) continue;
    files.push({ folder, agentId: agent.id, agentName: agent.name, path: c.path, level: c.level, entries: countEntries(c.path) });
  }
  return files;
}

/**
 * Each file once, however many agents and folders list it (a user-level file is every session's; two folders
 * may be one through a link): the first listing of it is kept.
 */
export function distinctRuleFiles(files: readonly AgentRuleFile[]): AgentRuleFile[] {
  const seen = new Set<string>();
  return files.filter((f) => {
    let key = f.path;
    try {
      key = realpathSync(f.path);
    } catch {
      // gone since it was listed: its path is its name
    }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The allow / deny / ask entries of `permissions` (Claude, Qwen) and `tools.allowed` / `tools.exclude` (Qwen, Gemini); null when unreadable. */
function countEntries(path: string): number | null {
  try {
    if (statSync(path).size > MAX_BYTES) return null;
    const json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    const lists = [pick(json, 'permissions'), pick(json, 'tools')];
    let n = 0;
    for (const l of lists) for (const key of ['allow', 'deny', 'ask', 'allowed', 'exclude']) n += arrayLength(pick(l, key));
    return n;
  } catch {
    return null;
  }
}

const pick = (v: unknown, key: string): unknown => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined);
const arrayLength = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/** The text of a file `agentRuleFiles` lists (none other). */
export function readAgentRuleFile(listed: readonly AgentRuleFile[], path: string): string | null {
  if (!listed.some((f) => f.path === path)) return null;
  if (statSync(path).size > MAX_BYTES) return null;
  return readFileSync(path, 'utf8');
}
