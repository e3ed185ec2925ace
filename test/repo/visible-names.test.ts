import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/app-server';

/**
 * A name someone else chose (a branch, a session title, an agent's name or its tool call's title, a folder or file
 * path, a host's name) is shown through VisibleText (src/renderer/src/ui/VisibleText.tsx): isolated, its bidi and
 * invisible characters marked, so that `sb/invoice\u202Egnp.exe` never reads as `sb/invoiceexe.png`. This scans
 * the renderer for such a name put raw between tags, `{info.branch}` say, instead of `<VisibleText text={…} />`
 * (or `visibleText(…)` where only a string can go, as in an <option>).
 */
const NAMES = [
  /\.branch\b/,
  /\.base\b/,
  /\bbranch\b/,
  /\.title\b/,
  /^title$/,
  /\bsessionTitle\(/,
  /\bdisplayTitle\(/,
  /\bagentName\b/,
  /\.cwd\b/,
  /^cwd$/,
  /\bshortPath\(/,
  /\bbasename\(/,
  /\bhostLabel\(/,
  /\bhostName\(/,
  /\b(h|host)\.label\b/,
  /\brelativeTo\(/,
  /\.folder\b/,
  /\.path\b/,
  /^path$/,
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.tsx') ? [join(dir, e.name)] : []));
}

/** `{expr}` between tags (after `>` or `}` or text on a JSX line, not an attribute's value), with its line. */
function rawChildren(source: string): Array<{ line: number; expr: string }> {
  const out: Array<{ line: number; expr: string }> = [];
  source.split('\n').forEach((text, i) => {
    const trimmed = text.trim();
    if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('import ')) return;
    for (const m of text.matchAll(/\{([^{}]*)\}/g)) {
      const before = text.slice(0, m.index).trimEnd();
      // Attribute values, object literals, template parts and destructuring are not children.
      if (before.endsWith('=') || before.endsWith('$') || before.endsWith('(') || before.endsWith(',') || before.endsWith(':')) continue;
      if (!(before.endsWith('>') || before.endsWith('}') || before === '' || /[\w.…—:)'’]$/.test(before))) continue;
      const expr = m[1]!.trim();
      if (/visibleText\(|VisibleText/.test(expr) || /=>|^\.\.\./.test(expr)) continue;
      // A typed or destructured object (`{ a, b }`, `{ a: 1 }`) is not a child.
      if (/^[\w$]+(\s*,\s*[\w$]+)+$/.test(expr) || /^\w+\s*:/.test(expr) || /^\s*$/.test(expr)) continue;
      if (NAMES.some((n) => n.test(expr))) out.push({ line: i + 1, expr });
    }
  });
  return out;
}

describe('names someone else chose, in the renderer', () => {
  it('are shown through VisibleText, never raw', () => {
    const root = join(repoRoot, 'src/renderer/src');
    const raw = files(root).flatMap((f) => {
      const source = readFileSync(f, 'utf8');
      // Only JSX lines: a .tsx file's plain code (`const x = {…}`) is skipped by rawChildren's rules.
      return rawChildren(source).map((r) => `${relative(repoRoot, f)}:${r.line}: {${r.expr}}`);
    });
    expect(raw).toEqual([]);
  });
});
