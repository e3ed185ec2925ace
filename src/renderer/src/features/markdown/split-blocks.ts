/**
 * Splits markdown at blank lines outside fenced code. Each block is a complete markdown document for
 * all practical purposes (a list split at a blank line renders as two lists, which looks the same).
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | null = null;
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\n', pos);
    const lineEnd = end < 0 ? text.length : end;
    const line = text.slice(pos, lineEnd);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null && line.trim() === '') {
      if (pos > start) blocks.push(text.slice(start, pos));
      start = lineEnd + 1;
    }
    pos = lineEnd + 1;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks.filter((b) => b.trim() !== '').flatMap(cutLarge);
}

const LARGE = 3000;
const PIECE = 1500;

/**
 * A paragraph of more than LARGE characters (a flood, a pasted log) is cut at whitespace into pieces of
 * about PIECE, so that a streaming one re-parses only its last piece. Fenced code is left whole.
 */
function cutLarge(block: string): string[] {
  if (block.length <= LARGE || /^ {0,3}(`{3,}|~{3,})/.test(block)) return [block];
  const pieces: string[] = [];
  let from = 0;
  while (block.length - from > LARGE) {
    const window = block.slice(from + PIECE / 2, from + PIECE);
    const nl = window.lastIndexOf('\n');
    const sp = window.lastIndexOf(' ');
    const cut = nl >= 0 ? nl : sp;
    const at = cut >= 0 ? from + PIECE / 2 + cut + 1 : from + PIECE;
    pieces.push(block.slice(from, at));
    from = at;
  }
  pieces.push(block.slice(from));
  return pieces;
}
