/**
 * An allow-list SVG sanitizer for registry icons, run in the main process (no DOM there). It parses
 * the markup itself and rebuilds it from known-safe shapes and attributes only: no scripts, event
 * handlers, foreignObject, style sheets, animation, images, external references or entities. Every
 * colour becomes currentColor, so the icon follows the theme (the registry asks for monochrome icons).
 */

const SVG_NS = 'http://www.w3.org/2000/svg';
export const MAX_SVG_BYTES = 256 * 1024;

const ELEMENTS = new Set([
  'svg',
  'g',
  'path',
  'circle',
  'ellipse',
  'rect',
  'line',
  'polyline',
  'polygon',
  'defs',
  'clipPath',
  'mask',
  'linearGradient',
  'radialGradient',
  'stop',
  'symbol',
  'use',
]);

/** Attributes kept as they are (after value checks). */
const ATTRIBUTES = new Set([
  'd',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'width',
  'height',
  'points',
  'viewBox',
  'transform',
  'preserveAspectRatio',
  'pathLength',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-opacity',
  'fill-opacity',
  'fill-rule',
  'clip-rule',
  'opacity',
  'clip-path',
  'mask',
  'offset',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'clipPathUnits',
  'maskUnits',
  'maskContentUnits',
  'vector-effect',
  'shape-rendering',
  'display',
  'visibility',
  'id',
]);

/** Colour attributes: mapped to currentColor unless none or a local paint server. */
const COLOURS = new Set(['fill', 'stroke', 'stop-color', 'color', 'flood-color', 'lighting-color']);

const LOCAL_URL = /^url\(\s*(['"]?)#[A-Za-z_][\w.:-]*\1\s*\)$/;

interface Node {
  name: string;
  attrs: Array<[string, string]>;
  children: Node[];
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(v: string): string {
  return v.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (all, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(parseInt(ref.slice(2), 16)) ?? '';
    if (ref.startsWith('#')) return safeCodePoint(parseInt(ref.slice(1), 10)) ?? '';
    return ENTITIES[ref] ?? all;
  });
}

const safeCodePoint = (n: number): string | null => (n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : null);

const escapeAttr = (v: string): string => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A tolerant tokenizer: comments, doctypes (with internal subsets), CDATA and PIs are skipped. */
function parse(text: string): Node | null {
  const root: Node = { name: '#root', attrs: [], children: [] };
  const stack: Node[] = [root];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (text.startsWith('<!', i)) {
      // <!DOCTYPE … [ internal subset ] >
      let j = i + 2;
      let depth = 0;
      while (j < n) {
        const c = text[j];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
        j++;
      }
      i = j + 1;
      continue;
    }
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (text.startsWith('</', i)) {
      const m = /^<\/\s*([^\s>]+)\s*>/.exec(text.slice(i, i + 300));
      if (!m) {
        i += 2;
        continue;
      }
      const name = m[1]!;
      const at = stack.map((s) => s.name).lastIndexOf(name);
      if (at > 0) stack.length = at;
      i += m[0].length;
      continue;
    }
    const nameMatch = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 200));
    if (!nameMatch) {
      i += 1;
      continue;
    }
    const node: Node = { name: nameMatch[1]!, attrs: [], children: [] };
    let j = i + nameMatch[0].length;
    let selfClosing = false;
    const attrRe = /\s*(?:([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?|(\/?>))/y;
    for (;;) {
      attrRe.lastIndex = j;
      const a = attrRe.exec(text);
      if (!a || a[0] === '') {
        // Malformed: give up on this tag.
        j = text.indexOf('>', j);
        j = j < 0 ? n : j + 1;
        break;
      }
      j = attrRe.lastIndex;
      if (a[5]) {
        selfClosing = a[5] === '/>';
        break;
      }
      if (a[1]) node.attrs.push([a[1], decodeEntities(a[2] ?? a[3] ?? a[4] ?? '')]);
    }
    stack.at(-1)!.children.push(node);
    if (!selfClosing) stack.push(node);
    i = j;
  }
  const svg = root.children.find((c) => c.name === 'svg');
  return svg ?? null;
}

const PLAIN_COLOUR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\(\s*[\d.%]+\s*,\s*[\d.%]+\s*,\s*[\d.%]+\s*(,\s*[\d.%]+\s*)?\))$/;

function cleanValue(name: string, raw: string, inMask: boolean): string | null {
  const v = raw.trim();
  if (v.length > (name === 'd' || name === 'points' ? 65_536 : 1024)) return null;
  if (/[<>\0]/.test(v)) return null;
  if (COLOURS.has(name)) {
    if (v === 'none' || v === 'transparent') return 'none';
    if (LOCAL_URL.test(v)) return v;
    // Inside a mask colours are luminance, not paint: keep them, or the mask would follow the theme.
    if (inMask && PLAIN_COLOUR.test(v)) return v;
    return 'currentColor';
  }
  if (/url\s*\(/i.test(v)) return LOCAL_URL.test(v) ? v : null;
  if (/(javascript|data|vbscript)\s*:|expression\s*\(/i.test(v)) return null;
  if (name === 'id') return /^[A-Za-z_][\w.:-]*$/.test(v) ? v : null;
  return v;
}

function styleDeclarations(style: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const decl of style.split(';')) {
    const colon = decl.indexOf(':');
    if (colon < 0) continue;
    const prop = decl.slice(0, colon).trim().toLowerCase();
    const value = decl
      .slice(colon + 1)
      .replace(/!important/i, '')
      .trim();
    if (prop && value) out.push([prop, value]);
  }
  return out;
}

function serialize(node: Node, isRoot: boolean, inMask = false): string {
  const attrs = new Map<string, string>();
  const put = (name: string, value: string) => {
    if (name === 'color') return; // sets currentColor itself: let the theme decide
    if (!ATTRIBUTES.has(name) && !COLOURS.has(name)) return;
    const clean = cleanValue(name, value, inMask);
    if (clean !== null) attrs.set(name, clean);
  };
  for (const [name, value] of node.attrs) {
    if (name === 'style') continue;
    if ((name === 'href' || name === 'xlink:href') && node.name === 'use') {
      if (/^#[A-Za-z_][\w.:-]*$/.test(value.trim())) attrs.set('href', value.trim());
      continue;
    }
    put(name, value);
  }
  // Inline style: allowed properties become attributes (they win over attributes, as in CSS).
  for (const [name, value] of node.attrs) if (name === 'style') for (const [prop, v] of styleDeclarations(value)) put(prop, v);
  if (isRoot) {
    if (!attrs.has('viewBox')) {
      const w = Number.parseFloat(attrs.get('width') ?? '');
      const h = Number.parseFloat(attrs.get('height') ?? '');
      if (w > 0 && h > 0) attrs.set('viewBox', `0 0 ${w} ${h}`);
    }
    if (!attrs.has('fill')) attrs.set('fill', 'currentColor');
  }
  const children = node.children
    .filter((c) => ELEMENTS.has(c.name) && c.name !== 'svg')
    .map((c) => serialize(c, false, inMask || node.name === 'mask'))
    .join('');
  const attrText = [...(isRoot ? [['xmlns', SVG_NS] as const] : []), ...attrs].map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  return children ? `<${node.name}${attrText}>${children}</${node.name}>` : `<${node.name}${attrText}/>`;
}

export type SanitizeOutcome = { ok: true; svg: string } | { ok: false; error: string };

export function sanitizeSvg(input: string): SanitizeOutcome {
  if (input.length > MAX_SVG_BYTES) return { ok: false, error: `the icon is larger than ${MAX_SVG_BYTES} bytes` };
  const root = parse(input.replace(/^\uFEFF/, ''));
  if (!root) return { ok: false, error: 'not an SVG image' };
  const svg = serialize(root, true);
  if (!/<(path|circle|ellipse|rect|line|polyline|polygon|use)\b/.test(svg)) return { ok: false, error: 'the icon has no drawable shapes' };
  return { ok: true, svg };
}
