/**
 * Names and titles an agent controls (file names, session titles, MCP entries) shown as what they are.
 * `invoice\u202Efdp.exe` displays as "invoiceexe.pdf" when the right-to-left override acts; a newline, a
 * carriage return or a zero-width space is invisible. So every control, bidi and invisible character is
 * replaced by a visible token (␊, ␍, ␉, or its code point as `<U+202E>`), and the text is isolated
 * (`<bdi>`) so that right-to-left letters in it cannot reorder what surrounds it.
 */

/** Characters that act on layout or show nothing: bidi embeddings, overrides, isolates and marks; zero-width and other invisible format characters. */
// eslint-disable-next-line no-misleading-character-class -- joiners are listed as single code points on purpose
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb]|\udb40[\udc00-\udfff]/;
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-misleading-character-class -- as above
const SPECIAL = new RegExp(`${CONTROL.source}|${INVISIBLE.source}|[\\u2028\\u2029]`, 'g');

const NAMED: Record<string, string> = { '\n': '␊', '\r': '␍', '\t': '␉', '\u001b': '␛', '\u0000': '␀', '\u007f': '␡' };

/** The visible token for one control or invisible character. */
export function tokenOf(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Whether `s` holds a character that would be hidden or would reorder the text. */
export const hasHiddenCharacters = (s: string): boolean => {
  SPECIAL.lastIndex = 0;
  return SPECIAL.test(s);
};

/** `s` with each control and invisible character replaced by its token: for titles, tooltips and labels. */
export function visibleText(s: string): string {
  return s.replace(SPECIAL, tokenOf);
}

/** `text` shown isolated, its hidden characters as marked tokens (`title` on the element says what they are). */
export function VisibleText({ text, className }: { text: string; className?: string }) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(text); m; m = SPECIAL.exec(text)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(
      <span key={m.index} className="hidden-char" data-hidden-char={m[0].codePointAt(0)!.toString(16)}>
        {tokenOf(m[0])}
      </span>,
    );
    last = m.index + m[0].length;
  }
  if (parts.length === 0) return <bdi className={className}>{text}</bdi>;
  if (last < text.length) parts.push(text.slice(last));
  return (
    <bdi className={className} title={`${visibleText(text)} (contains hidden characters, shown marked)`} data-has-hidden="true">
      {parts}
    </bdi>
  );
}
