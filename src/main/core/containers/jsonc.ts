/** JSON with comments and trailing commas (what devcontainer.json is), parsed with errors that name a line and column. */

export class JsoncError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    detail: string,
  ) {
    super(`line ${line}, column ${column}: ${detail}`);
    this.name = 'JsoncError';
  }
}

/**
 * Parses JSONC: `//` and `/* *\/` comments and commas before `}` or `]` become spaces (every other character
 * keeps its place, so JSON.parse's positions still point into the text), then JSON.parse.
 */
export function parseJsonc(text: string): unknown {
  const chars = [...text.replace(/^\uFEFF/, '')];
  const out = chars.slice();
  let i = 0;
  let pendingComma = -1;
  while (i < chars.length) {
    const c = chars[i]!;
    if (c === '"') {
      pendingComma = -1;
      i++;
      while (i < chars.length && chars[i] !== '"' && chars[i] !== '\n') i += chars[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && chars[i + 1] === '/') {
      while (i < chars.length && chars[i] !== '\n') out[i++] = ' ';
    } else if (c === '/' && chars[i + 1] === '*') {
      const start = i;
      i += 2;
      while (i < chars.length && !(chars[i] === '*' && chars[i + 1] === '/')) i++;
      if (i >= chars.length) throw errorAt(chars, start, 'a comment that never ends');
      i += 2;
      for (let j = start; j < i; j++) if (out[j] !== '\n') out[j] = ' ';
    } else if (c === ',') {
      pendingComma = i++;
    } else if ((c === '}' || c === ']') && pendingComma >= 0) {
      out[pendingComma] = ' ';
      pendingComma = -1;
      i++;
    } else {
      if (!/\s/.test(c)) pendingComma = -1;
      i++;
    }
  }
  const cleaned = out.join('');
  try {
    return JSON.parse(cleaned);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = /position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : cleaned.length;
    throw errorAt([...cleaned], utf16ToIndex(cleaned, offset), message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, ''));
  }
}

function utf16ToIndex(text: string, offset: number): number {
  return [...text.slice(0, offset)].length;
}

function errorAt(chars: readonly string[], index: number, detail: string): JsoncError {
  let line = 1;
  let column = 1;
  for (let j = 0; j < Math.min(index, chars.length); j++) {
    if (chars[j] === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return new JsoncError(line, column, detail);
}
