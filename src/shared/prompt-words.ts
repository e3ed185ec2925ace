/** Control characters (but tab and line feed), soft hyphens, zero-width and bidi marks. */
// eslint-disable-next-line no-control-regex -- these are the characters it takes out
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/;

/**
 * The words of a prompt a person reads, without the directives typed or pasted around them: blocks in tags
 * (`<context>…</context>`, `<system-reminder>`), a leading slash command, `@` mentions (the file's name is
 * kept), pasted images and data URLs, code fences and markdown marks, invisible and bidi characters.
 */
export function visiblePromptText(text: string, options: { keepInvisible?: boolean } = {}): string {
  let t = options.keepInvisible ? text : text.replace(/\r\n?/g, '\n');
  // Blocks in tags (a lone tag is words: "why does <div> not center").
  for (let i = 0; i < 4; i++) t = t.replace(/<([A-Za-z][\w:.-]{0,60})(?:\s[^<>]{0,500})?>[\s\S]*?<\/\1\s*>/g, ' ');
  t = t.replace(/```[\s\S]*?(?:```|$)/g, '\n');
  t = t.replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, ' ');
  t = t.replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, '$1');
  t = t.replace(/data:[\w/+.-]{1,100};base64,[A-Za-z0-9+/=]*/g, ' ');
  t = t.replace(/\[(?:image|pasted (?:text|image)|file|attachment)\b[^\]\n]*\]/gi, ' ');
  // A slash command is a directive where a prompt starts with it.
  t = t.replace(/^\s*\/[A-Za-z][\w:.-]*/, ' ');
  t = t.replace(/(^|[\s(])@(?:"([^"\n]+)"|([^\s"]+))/g, (_m, pre: string, quoted?: string, bare?: string) => {
    const ref = (quoted ?? bare ?? '').replace(/[),.;:!?]+$/, '').replace(/\/+$/, '');
    return `${pre}${ref.slice(ref.lastIndexOf('/') + 1) || ref}`;
  });
  if (!options.keepInvisible) t = [...t].filter((c) => !INVISIBLE.test(c)).join('');
  return t
    .split('\n')
    .map((line) =>
      line
        .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+)+/, '')
        .replace(/[*~`]+/g, '')
        .replace(/(^|\s)_+|_+(?=\s|$|[.,;:!?])/g, '$1'),
    )
    .join('\n');
}
