// The README's "What adding one of each touches" lists, for each kind of thing a change adds (a thread entry
// kind, a setting, a request, a host kind, an import source), the files that exist today and must change.
// The rule that keeps the lists true, for every kind but requests: a file must change for a new member exactly
// when it names every current member (a union, a `Record`, a table, an exhaustive `switch`, a rendered doc),
// the members being read from the kind's own registry. So the listed files are exactly the files under src/ and
// docs/ that name every member. Requests have no file naming them all; their rule: each is declared in exactly
// one contract file and handled by exactly one `.handle(name` in main (2 files, as the README says).
// Plain file reads, no TypeScript program.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

/** Path (relative, '/'-separated) → text of every file that can enumerate a kind. */
type Tree = Map<string, string>;

function readTree(): Tree {
  const tree: Tree = new Map();
  const walk = (rel: string, ext: RegExp): void => {
    for (const e of readdirSync(join(repoRoot, rel), { withFileTypes: true })) {
      const path = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(path, ext);
      else if (ext.test(e.name)) tree.set(path, readFileSync(join(repoRoot, path), 'utf8'));
    }
  };
  walk('src', /\.tsx?$/);
  walk('docs', /\.md$/);
  return tree;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/** Whether `text` names `member`: quoted as code quotes it (in a doc, backquoted) or as an unquoted object key. */
function names(text: string, member: string, doc: boolean): boolean {
  const m = escape(member);
  return new RegExp(doc ? `\`${m}\`` : `(['"])${m}\\1|^\\s*${m}:`, 'm').test(text);
}

const namingEvery = (tree: Tree, members: readonly string[]): string[] =>
  [...tree].filter(([path, text]) => members.every((m) => names(text, m, path.endsWith('.md')))).map(([path]) => path).sort();

function matches(text: string, re: RegExp): string[] {
  return [...text.matchAll(re)].map((m) => m[1]!);
}

/** The list of a `const X = [ '…', … ] as const` in `text`. */
function constList(text: string, name: string): string[] {
  const m = new RegExp(`${name} = \\[([^\\]]*)\\] as const`).exec(text);
  return m ? matches(m[1]!, /'([^']+)'/g) : [];
}

type Kind = 'entry' | 'setting' | 'host' | 'source';
const HEADINGS: Record<Kind | 'request', string> = {
  entry: 'A thread entry kind',
  setting: 'A setting',
  request: 'A request',
  host: 'A host kind',
  source: 'An import source',
};

/** Each kind's member lists, from its registry; a file must change when it names every member of one of them. */
function memberLists(tree: Tree): Record<Kind, string[][]> {
  const text = (p: string): string => tree.get(p) ?? '';
  return {
    // An entry kind shown for a new update kind: the entry kinds, and the update kinds.
    entry: [matches(text('src/shared/acp-thread/types.ts'), /^\s*kind: '([a-z_]+)';/gm), matches(text('src/shared/acp-thread/updates.ts'), /^ {2}(\w+): \{ entry:/gm)],
    setting: [matches(text('src/shared/contract/settings.ts'), /^ {2}'([^']+)': def\(/gm)],
    host: [constList(text('src/shared/contract/hosts.ts'), 'HOST_KINDS')],
    source: [constList(text('src/shared/import-sources.ts'), 'importSourceIds')],
  };
}

/** The README section's list of paths for each heading (list items that start with a backquoted path). */
function readmeLists(readme: string): Map<string, string[]> {
  const start = readme.indexOf('## What adding one of each touches');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of section.split('\n')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) out.set(heading[1]!.trim(), (current = []));
    const item = /^- `([^`]+)`/.exec(line);
    if (item && current) current.push(item[1]!);
  }
  return out;
}

/** What is wrong with the README's lists against the tree, as sentences; empty when they are true. */
function problems(readme: string, tree: Tree): string[] {
  const out: string[] = [];
  const lists = readmeLists(readme);
  const members = memberLists(tree);
  for (const kind of Object.keys(members) as Kind[]) {
    const listed = lists.get(HEADINGS[kind]);
    if (!listed) {
      out.push(`the README has no "### ${HEADINGS[kind]}"`);
      continue;
    }
    for (const list of members[kind]) if (list.length < 2) out.push(`${kind}: its registry's members were not found (${list.join(', ')})`);
    for (const path of listed) if (!tree.has(path) && !existsSync(join(repoRoot, path))) out.push(`${kind}: ${path} is listed and does not exist`);
    const found = [...new Set(members[kind].flatMap((list) => namingEvery(tree, list)))].sort();
    for (const path of found) if (!listed.includes(path)) out.push(`${kind}: ${path} names every ${kind} and is not listed`);
    for (const path of listed) if (!found.includes(path)) out.push(`${kind}: ${path} is listed and does not name every ${kind}`);
  }

  const requestList = lists.get(HEADINGS.request) ?? [];
  if (!requestList.includes('src/shared/contract/<domain>.ts')) out.push('request: the README does not list src/shared/contract/<domain>.ts');
  const contract = [...tree].filter(([p]) => /^src\/shared\/contract\/[^/]+\.ts$/.test(p));
  const main = [...tree].filter(([p]) => p.startsWith('src/main/')).map(([, t]) => t);
  const requests = contract.flatMap(([, t]) => matches(t, /^\s*'([a-zA-Z]+\.[a-zA-Z.]+)': request\(/gm));
  if (requests.length < 100) out.push(`request: only ${requests.length} requests found in the contract`);
  for (const name of new Set(requests)) {
    const declared = contract.filter(([, t]) => t.includes(`'${name}': request(`)).length;
    if (declared !== 1) out.push(`request: ${name} is declared in ${declared} contract files`);
    const handled = main.reduce((n, t) => n + t.split(`.handle('${name}'`).length - 1, 0);
    if (handled !== 1) out.push(`request: ${name} is handled ${handled} times in src/main (as \`.handle('${name}'\`)`);
  }
  return out;
}

const README = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const TREE = readTree();

describe("the README's files to add each kind", () => {
  it('are true: each listed file exists and is exactly the set that names every member of its kind', () => {
    expect(problems(README, TREE)).toEqual([]);
  });

  it('fail when a file starts naming every entry kind (an icon table, say) and is not listed', () => {
    const kinds = memberLists(TREE).entry[0]!;
    const tree = new Map(TREE).set('src/renderer/src/features/session/entry-icons.ts', `export const ICONS: Record<EntryKind, string> = {\n${kinds.map((k) => `  ${k}: '',`).join('\n')}\n};\n`);
    expect(problems(README, tree)).toEqual(['entry: src/renderer/src/features/session/entry-icons.ts names every entry and is not listed']);
  });

  it('fail when a listed file stops naming every member (the parsers map losing one source)', () => {
    const path = 'src/main/core/history-import/parsers/line-parsers.ts';
    const tree = new Map(TREE).set(path, TREE.get(path)!.replace(/^\s*codex:.*$/m, ''));
    expect(problems(README, tree)).toEqual([`source: ${path} is listed and does not name every source`]);
  });

  it('fail when a setting, host kind or import source list names a file that does not exist', () => {
    const readme = README.replace('- `src/shared/import-sources.ts`', '- `src/shared/import-source-names.ts`');
    expect(problems(readme, TREE)).toEqual([
      'source: src/shared/import-source-names.ts is listed and does not exist',
      'source: src/shared/import-sources.ts names every source and is not listed',
      'source: src/shared/import-source-names.ts is listed and does not name every source',
    ]);
  });

  it('fail when a request is handled twice or not at all', () => {
    const path = 'src/main/core/acp/agents/handlers.ts';
    const twice = new Map(TREE).set(path, `${TREE.get(path)!}\nrouter.handle('agents.list', () => ({ agents: [] }));\n`);
    expect(problems(README, twice)).toEqual(["request: agents.list is handled 2 times in src/main (as `.handle('agents.list'`)"]);
    const never = new Map(TREE).set(path, TREE.get(path)!.replace(".handle('agents.list'", ".handle('agents.list2'"));
    expect(problems(README, never)).toEqual(["request: agents.list is handled 0 times in src/main (as `.handle('agents.list'`)"]);
  });
});
