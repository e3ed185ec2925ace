import { RE2JS } from 're2js';

/**
 * The scope of a permission rule: which later requests it answers. A rule is never wider than what the user
 * was shown: one agent, one tool kind, one project folder (optionally one session), and a pattern over what
 * the request names: its command (exact, or a prefix such as `echo *`), its paths (exact, or a glob inside the
 * folder), or, when it names neither, its title (exact).
 *
 * Patterns come from agents (their option labels and requests) and are untrusted: commands match by
 * comparison, globs are compiled to RE2 (linear time). Text with direction controls or other invisible or
 * control characters is never matched by a rule (the user must see it), and patterns may not contain them.
 */

export type RuleSubject = 'command' | 'path' | 'title';
export type RuleMatch = 'exact' | 'prefix' | 'glob';

export interface RuleScope {
  subject: RuleSubject;
  match: RuleMatch;
  /** exact: the command, path or title; prefix: the command's leading words (shown as `echo *`); glob: an absolute path glob. */
  pattern: string;
  /** The project folder: the rule answers sessions whose folder is this one or inside it. */
  folder: string;
  /** Only this session, when set. */
  sessionId: string | null;
}

/** What a request names, as a rule compares it. */
export type RequestSubject = { subject: 'command'; command: string } | { subject: 'path'; paths: string[] } | { subject: 'title'; title: string };

export const PATTERN_MAX = 4096;

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
// Control characters (tab aside) and invisible format characters (bidi controls, zero-width joiners…).
const HIDDEN = /[^\P{Cc}\t]|\p{Cf}/u;

/** The text without direction controls (how labels are compared). */
export const stripBidi = (text: string): string => text.replace(BIDI, '');
export const hasHidden = (text: string): boolean => HIDDEN.test(text);

const collapse = (text: string): string => text.replace(/[ \t]+/g, ' ').trim();

// Shell syntax that joins several commands into one line, or runs one inside another.
const COMPOUND = /[;&|`\n\r]|\$\(|<\(|>\(/;
// Redirections read or write files the command does not name as its arguments.
const REDIRECT = /[<>]/;

/**
 * A command as a prefix rule compares it: its words, or null when a prefix rule cannot answer it: it is
 * compound (`;`, `&&`, `|`, `$( )`…), redirects to or from files, or hides characters. (An exact rule still
 * answers the very command the user saw.)
 */
export function commandWords(command: string): string | null {
  if (hasHidden(command) || COMPOUND.test(command) || REDIRECT.test(command)) return null;
  return collapse(command);
}

/** Whether a command pattern's prefix is acceptable: its first word is literal and it is one simple command. */
function prefixProblem(prefix: string): string | null {
  const words = collapse(prefix);
  if (!words) return 'a command prefix needs at least its first word';
  if (COMPOUND.test(words) || REDIRECT.test(words)) return 'a command prefix cannot hold ;, &, |, <, >, backticks or $( )';
  if (/[*?[\]{}]/.test(words.split(' ')[0]!)) return 'the first word of a command prefix must be literal';
  return null;
}

export function matchCommand(scope: Pick<RuleScope, 'match' | 'pattern'>, command: string): boolean {
  if (hasHidden(command)) return false;
  if (scope.match === 'exact') return collapse(command) === collapse(scope.pattern);
  if (scope.match !== 'prefix') return false;
  const words = commandWords(command);
  const prefix = collapse(scope.pattern);
  if (words === null || prefixProblem(prefix)) return false;
  return words === prefix || words.startsWith(`${prefix} `);
}

const isWindows = (p: string): boolean => /^[A-Za-z]:[\\/]/.test(p);
export const isAbsolute = (p: string): boolean => p.startsWith('/') || isWindows(p);

/** An absolute path with `.` and `..` resolved and one separator style (relative paths against `base`). */
export function normalizePath(path: string, base?: string): string {
  const win = isWindows(path) || (!isAbsolute(path) && base !== undefined && isWindows(base));
  let full = isAbsolute(path) || base === undefined ? path : `${base}/${path}`;
  if (win) full = full.replace(/\\/g, '/');
  const drive = win ? full.slice(0, 2) : '';
  const parts: string[] = [];
  for (const part of full.slice(drive.length).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `${drive}/${parts.join('/')}`;
}

/** Whether `path` is `folder` or inside it (both normalized). */
export function isInside(path: string, folder: string): boolean {
  const f = folder.endsWith('/') ? folder.slice(0, -1) : folder;
  return path === f || path.startsWith(`${f}/`);
}

const globCache = new Map<string, RE2JS>();

/** A path glob as RE2: `**` any number of segments, `*` and `?` within one segment; everything else literal. */
function compileGlob(glob: string): RE2JS {
  const cached = globCache.get(glob);
  if (cached) return cached;
  let re = '';
  const segments = glob.split('/');
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') {
      re += last ? '.*' : '(?:[^/]*/)*';
      return;
    }
    for (const ch of seg) re += ch === '*' ? '[^/]*' : ch === '?' ? '[^/]' : RE2JS.quote(ch);
    if (!last) re += '/';
  });
  const compiled = RE2JS.compile(`^${re}$`, RE2JS.DOTALL);
  if (globCache.size > 500) globCache.clear();
  globCache.set(glob, compiled);
  return compiled;
}

export function matchPath(scope: Pick<RuleScope, 'match' | 'pattern'>, path: string): boolean {
  if (hasHidden(path)) return false;
  if (scope.match === 'exact') return path === scope.pattern;
  if (scope.match !== 'glob') return false;
  return compileGlob(scope.pattern).matches(path);
}

/** Whether a rule of this scope answers a request naming `subject` in a session of `folder`. */
export function scopeAnswers(scope: RuleScope, request: { sessionId: string; folder: string; subject: RequestSubject }): boolean {
  if (scope.sessionId !== null && scope.sessionId !== request.sessionId) return false;
  if (hasHidden(request.folder) || !isInside(normalizePath(request.folder), scope.folder)) return false;
  const s = request.subject;
  if (s.subject !== scope.subject) return false;
  if (s.subject === 'command') return matchCommand(scope, s.command);
  if (s.subject === 'title') return scope.match === 'exact' && !hasHidden(s.title) && collapse(s.title) === collapse(scope.pattern);
  return s.paths.length > 0 && s.paths.every((p) => matchPath(scope, p));
}

/** Why a scope is wider than a rule may be (or malformed), as a sentence; null when it is acceptable. */
export function scopeProblem(scope: RuleScope): string | null {
  const { subject, match, pattern, folder, sessionId } = scope;
  if (hasHidden(folder) || hasHidden(pattern)) return 'a rule cannot hold control, invisible or direction characters';
  if (!isAbsolute(folder)) return 'the rule’s folder must be an absolute path';
  if (normalizePath(folder) !== folder) return 'the rule’s folder must be written without ., .. or a trailing separator';
  if (folder === '/' || /^[A-Za-z]:\/?$/.test(folder)) return 'a rule cannot cover the whole file system: choose a project folder';
  if (sessionId !== null && (sessionId.length === 0 || sessionId.length > 200)) return 'invalid session';
  if (!pattern.trim()) return 'the rule needs a pattern';
  if (pattern.length > PATTERN_MAX) return `a pattern has at most ${PATTERN_MAX} characters`;
  if (subject === 'command') {
    if (match === 'exact') return null;
    if (match === 'prefix') return prefixProblem(pattern);
    return 'a command rule is exact or a prefix';
  }
  if (subject === 'title') return match === 'exact' ? null : 'a title rule is exact';
  if (!isAbsolute(pattern) || normalizePath(pattern) !== pattern.replace(/\\/g, '/')) return 'a path pattern must be an absolute path without . or ..';
  if (match === 'exact') return null;
  if (match !== 'glob') return 'a path rule is exact or a glob';
  if (!isInside(pattern, folder) || pattern === folder) return 'a path glob must lie inside the rule’s folder';
  return null;
}

/** The pattern as the user reads it: `echo *`, a path relative to the folder, a title. */
export function patternText(scope: Pick<RuleScope, 'subject' | 'match' | 'pattern' | 'folder'>): string {
  if (scope.subject === 'command') return scope.match === 'prefix' ? `${collapse(scope.pattern)} *` : scope.pattern;
  if (scope.subject === 'path' && isInside(scope.pattern, scope.folder) && scope.pattern !== scope.folder) return scope.pattern.slice(scope.folder.replace(/\/$/, '').length + 1);
  return scope.pattern;
}

const VERBS: Record<string, string> = { execute: 'run', edit: 'edit', read: 'read', delete: 'delete', move: 'move', search: 'search', fetch: 'fetch', think: 'think about', switch_mode: 'switch to' };

export const folderName = (folder: string): string => folder.replace(/\/$/, '').split('/').pop() || folder;

/** The parts of "run `echo *` in proj (this session only)", for a view that sets the pattern apart. */
export function scopeParts(toolKind: string, scope: RuleScope): { verb: string; pattern: string; folder: string; sessionOnly: boolean } {
  return { verb: scope.subject === 'command' ? 'run' : (VERBS[toolKind] ?? 'use'), pattern: patternText(scope), folder: folderName(scope.folder), sessionOnly: scope.sessionId !== null };
}

/** "run `echo *` in proj" (and "this session only" when it is one). */
export function describeScope(toolKind: string, scope: RuleScope): string {
  const p = scopeParts(toolKind, scope);
  return `${p.verb} \`${p.pattern}\` in ${p.folder}${p.sessionOnly ? ' (this session only)' : ''}`;
}
