import type { PromptBlock } from '@shared/contract/sessions';

export interface Mention {
  path: string;
  relativePath: string;
}

export interface PendingImage {
  id: string;
  mimeType: string;
  /** base64, no data: prefix */
  data: string;
  name: string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The composer's content as prompt blocks: each `@relative/path` of an attached mention becomes a mention
 * block where it stands in the text; attached mentions whose token was deleted from the text and images
 * follow at the end.
 */
export function buildPrompt(text: string, mentions: readonly Mention[], images: readonly PendingImage[]): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const body = text.replace(/\s+$/, '');
  const used = new Set<string>();
  const pushText = (t: string) => {
    if (t.length > 0) blocks.push({ type: 'text', text: t });
  };
  if (mentions.length > 0) {
    const tokens = [...mentions].sort((a, b) => b.relativePath.length - a.relativePath.length);
    const re = new RegExp(tokens.map((m) => `${escapeRe(`@${m.relativePath}`)}(?=$|[\\s,.;:!?)\\]])`).join('|'), 'g');
    let last = 0;
    for (const match of body.matchAll(re)) {
      const mention = tokens.find((t) => `@${t.relativePath}` === match[0]);
      if (!mention) continue;
      pushText(body.slice(last, match.index));
      blocks.push({ type: 'mention', path: mention.path });
      used.add(mention.path);
      last = match.index! + match[0].length;
    }
    const rest = body.slice(last);
    if (rest.trim()) pushText(rest);
  } else if (body.trim()) {
    pushText(body);
  }
  for (const m of mentions) if (!used.has(m.path)) blocks.push({ type: 'mention', path: m.path });
  for (const img of images) blocks.push({ type: 'image', mimeType: img.mimeType, data: img.data });
  return blocks;
}

export type Trigger = { kind: 'mention'; start: number; query: string } | { kind: 'command'; query: string };

/** What the text before the caret asks for: `@query` (file picker) or a leading `/query` (commands). */
export function detectTrigger(text: string, caret: number): Trigger | null {
  if (text.startsWith('/')) {
    const space = text.search(/\s/);
    if (space === -1 || caret <= space) return { kind: 'command', query: text.slice(1, caret) };
  }
  for (let i = caret - 1; i >= 0; i--) {
    const ch = text[i]!;
    if (/\s/.test(ch)) return null;
    if (ch === '@') {
      if (i === 0 || /\s/.test(text[i - 1]!)) return { kind: 'mention', start: i, query: text.slice(i + 1, caret) };
      return null;
    }
  }
  return null;
}
