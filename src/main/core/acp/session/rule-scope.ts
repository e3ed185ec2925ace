import { realpathSync } from 'node:fs';
import type { PermissionOption, ToolCallLocation } from '@agentclientprotocol/sdk';
import {
  isAbsolute,
  isInside,
  matchCommand,
  normalizePath,
  scopeProblem,
  stripBidi,
  commandWords,
  type RequestSubject,
  type RuleScope,
} from '../../../../shared/permission-scope';

/** What the tool call of a permission request says (the request's own fields over the thread's earlier ones). */
export interface ToolCallFacts {
  kind: string;
  title: string | null;
  rawInput: unknown;
  locations: readonly ToolCallLocation[] | null | undefined;
}

const record = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

const PATH_KEYS = ['file_path', 'path', 'absolute_path', 'notebook_path', 'filePath', 'source', 'destination', 'old_path', 'new_path'];

/**
 * What a request names, as rules compare it: its command (the raw input's `command`, or an execute call's
 * title: Gemini sends no raw input), else its paths (locations and the raw input's path fields, resolved
 * against the session's folder), else its title.
 */
export function requestSubject(facts: ToolCallFacts, cwd: string): RequestSubject {
  const input = record(facts.rawInput);
  const title = (facts.title ?? '').trim();
  if (typeof input?.command === 'string' && input.command.trim()) return { subject: 'command', command: input.command };
  if (facts.kind === 'execute' && title) return { subject: 'command', command: title.replace(/^`([^`]*)`$/, '$1') };
  const paths = new Set<string>();
  const add = (p: string) => paths.add(resolveLinks(normalizePath(p, cwd), cwd));
  for (const l of facts.locations ?? []) if (typeof l?.path === 'string' && l.path) add(l.path);
  for (const key of PATH_KEYS) if (typeof input?.[key] === 'string' && input[key]) add(input[key] as string);
  if (paths.size > 0) return { subject: 'path', paths: [...paths] };
  return { subject: 'title', title };
}

/**
 * The path with symbolic links resolved (those of its longest existing part), so that a link inside the
 * project to a file outside it is compared as that file; written under `cwd` when it lies inside the real
 * folder of `cwd`. Resolved when the request comes, as it will be used.
 */
export function resolveLinks(path: string, cwd: string): string {
  const real = realOf(path);
  const realCwd = realOf(normalizePath(cwd));
  const folder = normalizePath(cwd);
  if (realCwd !== folder && isInside(real, realCwd)) return real === realCwd ? folder : `${folder}${real.slice(realCwd.length)}`;
  return real;
}

function realOf(path: string): string {
  let existing = path;
  let rest = '';
  for (;;) {
    try {
      return normalizePath(realpathSync.native(existing) + rest);
    } catch {
      const cut = existing.lastIndexOf('/');
      if (cut <= 0) return path;
      rest = existing.slice(cut) + rest;
      existing = existing.slice(0, cut);
    }
  }
}

// Phrases of option labels that name a command pattern: Qwen's "Always Allow in project: echo *", Claude's
// "Yes, and don't ask again for echo:* commands in proj", "Yes, and allow access to proj/ and echo commands".
const COMMAND_LABELS = [
  /always allow (?:in project|for user)\s*:\s*(.+)$/i,
  /don'?t ask again for (.+?) commands?\b/i,
  /\band (.+?) commands?\b/i,
  /allow (?:all )?(.+?) commands?\b/i,
];
const SESSION_LABEL = /\b(?:this|the current) session\b/i;
const ALL_EDITS_LABEL = /\ball (?:file )?edits\b/i;
const ACCESS_LABEL = /\baccess to (.+?)\/? (?:from|and)\b/i;

const unquote = (s: string): string => s.trim().replace(/^\*\*(.*)\*\*$/, '$1').replace(/^[`'"“‘](.*)[`'"”’]$/, '$1').trim();

/** A command pattern the label names, as a prefix rule: `echo *`, `echo:*` (Claude's), or a bare `echo`. */
function labelPrefixes(label: string): string[] {
  const found: string[] = [];
  for (const m of label.matchAll(/`([^`]+)`/g)) found.push(m[1]!);
  for (const re of COMMAND_LABELS) {
    const m = re.exec(label);
    if (m) found.push(...m[1]!.split(/,\s*|\s+and\s+/));
  }
  return found
    .map(unquote)
    .map((p) => p.replace(/(?::\*|\s*\*|…)$/, '').trim())
    .filter((p) => p.length > 0);
}

/**
 * The scope of the rule an "always" answer stores: never wider than what the option's label (and the
 * request) showed. A command prefix the label names is taken when it covers the request's command; "all
 * edits" is every path inside the project folder; a folder the label names is that folder's glob; "this
 * session" limits the rule to the session. Anything else makes an exact rule: this command, this path.
 */
export function scopeForAnswer(args: { option: Pick<PermissionOption, 'name'>; subject: RequestSubject; title: string; cwd: string; sessionId: string }): RuleScope {
  const label = stripBidi(typeof args.option.name === 'string' ? args.option.name : '').replace(/\s+/g, ' ').trim();
  const folder = normalizePath(args.cwd);
  const sessionId = SESSION_LABEL.test(label) ? args.sessionId : null;
  const s = args.subject;
  const base = { folder, sessionId };
  if (s.subject === 'command') {
    const exact: RuleScope = { ...base, subject: 'command', match: 'exact', pattern: s.command };
    // The prefix is judged on the command's first simple part ("echo always" of "echo always > a.txt"); the
    // rule it makes still answers only simple commands (no redirection, no chaining).
    const simple = s.command.split(/[;&|<>`\n\r]|\$\(/)[0]!;
    if (commandWords(simple) === null || !simple.trim()) return exact;
    const prefixes = [...new Set(labelPrefixes(label))]
      .map((pattern): RuleScope => ({ ...base, subject: 'command', match: 'prefix', pattern }))
      .filter((scope) => !scopeProblem(scope) && matchCommand(scope, simple));
    // Several names ("git status, git diff") would take several rules: the exact command is what is certain.
    return prefixes.length === 1 ? prefixes[0]! : exact;
  }
  if (s.subject === 'path') {
    const inside = s.paths.every((p) => isAbsolute(p) && isInside(p, folder) && p !== folder);
    if (inside && ALL_EDITS_LABEL.test(label)) return { ...base, subject: 'path', match: 'glob', pattern: `${folder}/**` };
    const named = ACCESS_LABEL.exec(label)?.[1];
    if (inside && named) {
      const dirName = unquote(named).replace(/\/$/, '');
      const dir = commonAncestorNamed(s.paths, dirName, folder);
      if (dir) return { ...base, subject: 'path', match: 'glob', pattern: `${dir}/**` };
    }
    if (s.paths.length === 1) return { ...base, subject: 'path', match: 'exact', pattern: s.paths[0]! };
  }
  // Several paths (a move) and no folder named: only requests with this very title, and no command or path.
  return { ...base, subject: 'title', match: 'exact', pattern: stripBidi(args.title).trim() || '(untitled)' };
}

/** The folder named `name` that holds every path, the project folder or inside it. */
function commonAncestorNamed(paths: readonly string[], name: string, folder: string): string | null {
  const first = paths[0]!;
  let dir = first.slice(0, first.lastIndexOf('/'));
  while (isInside(dir, folder)) {
    if (dir.split('/').pop() === name && paths.every((p) => isInside(p, dir))) return dir;
    if (dir === folder) break;
    dir = dir.slice(0, dir.lastIndexOf('/'));
  }
  return null;
}
