import type { PermissionOption, PermissionOptionKind } from '@agentclientprotocol/sdk';

/**
 * A permission option's name is the agent's text; its `kind` is what the answer does (and whether an
 * "always" rule is stored). The app shows the kind in its own words and checks the name against it.
 */

/** What each kind does, in the app's words (the card leads with this). */
export const PERMISSION_KIND_TEXT: Record<PermissionOptionKind, string> = {
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  reject_once: 'Reject once',
  reject_always: 'Always reject',
};

export const kindText = (kind: string): string => PERMISSION_KIND_TEXT[kind as PermissionOptionKind] ?? kind;

// Words are matched whole, after normalization (see `words`). CJK words are matched as substrings.
const REJECT_WORDS = new Set([
  'reject', 'rejected', 'deny', 'denied', 'decline', 'refuse', 'no', 'nope', 'nah', 'never', 'cancel', 'disallow', 'block', 'forbid',
  'stop', 'abort', 'skip', 'dismiss', 'veto', 'prohibit',
  // de, fr, es/pt, it, nl, ru
  'nein', 'ablehnen', 'verweigern', 'abbrechen', 'verbieten', 'non', 'refuser', 'rejeter', 'annuler', 'interdire', 'rechazar', 'denegar',
  'negar', 'cancelar', 'nao', 'rifiuta', 'rifiutare', 'nega', 'annulla', 'nee', 'weigeren', 'нет', 'отклонить', 'запретить', 'отмена', 'отказать',
]);
const ALLOW_WORDS = new Set([
  'allow', 'allowed', 'accept', 'approve', 'approved', 'yes', 'yep', 'yeah', 'ok', 'okay', 'permit', 'grant', 'confirm', 'proceed',
  'continue', 'run', 'go', 'sure', 'agree', 'authorize', 'authorise', 'trust', 'y',
  'ja', 'erlauben', 'zulassen', 'genehmigen', 'oui', 'autoriser', 'accepter', 'si', 'sim', 'permitir', 'aceptar', 'aprobar', 'consenti',
  'consentire', 'accetta', 'permetti', 'toestaan', 'да', 'разрешить', 'разрешать', 'принять',
]);
const NEGATORS = new Set(['not', 'dont', 'do not', 'never', 'nicht', 'ne', 'pas', 'не']);
const CJK_REJECT = ['拒绝', '拒否', '否', '不允许', '不', '取消', 'いいえ', '許可しない', '거부', '아니요'];
const CJK_ALLOW = ['允许', '是', '许可', 'はい', '許可', '承認', '허용', '예'];
/** Phrases about how long an answer holds. */
const ALWAYS_PHRASES = ['always', 'forever', 'permanently', 'dont ask again', 'do not ask again', 'never ask again', 'remember', 'from now on', 'all future', 'immer', 'toujours', 'siempre', 'sempre', 'всегда'];
const ONCE_PHRASES = ['once', 'this time', 'just this', 'only this', 'one time', 'single', 'einmal', 'une fois', 'una vez', 'una volta', 'один раз', '一次', '今回'];

// Latin look-alikes in other scripts (a label like "Rеject" with a Cyrillic "е").
const CONFUSABLES: Record<string, string> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', ԁ: 'd', һ: 'h', ӏ: 'l', к: 'k', м: 'm', т: 't', в: 'b', н: 'h',
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ϲ: 'c',
};
const LATIN = /[a-z]/;

/** The label as lowercase words: compatibility forms folded, accents, invisible characters and punctuation dropped. */
export function words(name: string): string[] {
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\p{Cf}/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '');
  return folded
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => (LATIN.test(w) ? toLatin(w) : w));
}

const toLatin = (w: string): string => [...w].map((c) => CONFUSABLES[c] ?? c).join('');

/** Whether the label reads as allowing, rejecting, or neither (the first decisive word wins: "Yes, and don't ask again" allows). */
export function nameIntent(name: string): 'allow' | 'reject' | null {
  let text = ` ${words(name).join(' ')} `;
  for (const p of [...ALWAYS_PHRASES, ...ONCE_PHRASES]) text = text.split(` ${p} `).join(' ');
  const list = text.trim().split(' ').filter(Boolean);
  let negated = false;
  for (let i = 0; i < list.length; i++) {
    // A word written wholly in look-alike letters ("ОК" in Cyrillic) counts as its Latin twin.
    const w = ALLOW_WORDS.has(list[i]!) || REJECT_WORDS.has(list[i]!) ? list[i]! : toLatin(list[i]!);
    const pair = `${w} ${list[i + 1] ?? ''}`;
    if (NEGATORS.has(w) || NEGATORS.has(pair)) {
      const next = list.slice(i + 1, i + 3);
      if (next.some((n) => ALLOW_WORDS.has(n))) return 'reject';
      if (w === 'never') return 'reject';
      negated = true;
      continue;
    }
    if (REJECT_WORDS.has(w)) return 'reject';
    if (ALLOW_WORDS.has(w)) return 'allow';
    const cjkReject = CJK_REJECT.some((c) => w.includes(c));
    const cjkAllow = CJK_ALLOW.some((c) => w.includes(c));
    if (cjkReject) return 'reject';
    if (cjkAllow) return 'allow';
  }
  return negated ? 'reject' : null;
}

/** Whether the label speaks of one time or of always (null: neither). */
export function nameScope(name: string): 'once' | 'always' | null {
  const text = ` ${words(name).join(' ')} `;
  if (ALWAYS_PHRASES.some((p) => text.includes(` ${p} `))) return 'always';
  if (ONCE_PHRASES.some((p) => text.includes(` ${p} `) || (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(p) && text.includes(p)))) return 'once';
  return null;
}

// Right-to-left overrides and embeddings, and the isolates, with the marks that close them.
const RTL_OPEN = new Set(['\u202E', '\u202B', '\u2067']);
const LTR_OPEN = new Set(['\u202D', '\u202A', '\u2066', '\u2068']);
const CLOSE = new Set(['\u202C', '\u2069']);
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/**
 * The label as it is displayed: a run after a right-to-left override (RLO, U+202E) shows its characters in
 * reverse, so "\u202Etcejer" reads "rejecr"… "reject". Direction controls are dropped. (Embeddings and
 * isolates do not reverse Latin letters; only overrides do.)
 */
export function displayedText(name: string): string {
  let out = '';
  const stack: Array<{ reverse: boolean; text: string }> = [];
  const push = (c: string) => {
    const top = stack[stack.length - 1];
    if (top) top.text += c;
    else out += c;
  };
  const pop = () => {
    const top = stack.pop()!;
    const text = top.reverse ? [...top.text].reverse().join('') : top.text;
    push(text);
  };
  for (const c of name) {
    if (RTL_OPEN.has(c) || LTR_OPEN.has(c)) stack.push({ reverse: c === '\u202E', text: '' });
    else if (CLOSE.has(c)) {
      if (stack.length > 0) pop();
    } else if (c === '\n' || c === '\u2029') {
      while (stack.length > 0) pop();
      push(c);
    } else if (!BIDI_CONTROLS.test(c)) push(c);
  }
  while (stack.length > 0) pop();
  return out;
}

/**
 * Why the label cannot be trusted to say what it shows, as a sentence; null when it can: it holds
 * direction controls (which can show text reversed or reordered) or letters that imitate Latin ones (a
 * Cyrillic "е" in "Rеject", fullwidth or mathematical letters).
 */
export function labelDeception(name: unknown): string | null {
  const label = typeof name === 'string' ? name : '';
  const shown = displayedText(label);
  if (BIDI_CONTROLS.test(label)) return `The agent’s label for this option (“${shown}”) holds hidden direction controls, so it may not say what it does.`;
  if (/\p{Cf}/u.test(label)) return `The agent’s label for this option (“${shown}”) holds invisible characters.`;
  if (label.normalize('NFKC') !== label.normalize('NFC')) return `The agent’s label for this option (“${shown}”) is written in look-alike letters.`;
  for (const w of label.normalize('NFC').split(/[^\p{L}\p{N}]+/u)) {
    if (LATIN.test(w.toLowerCase()) && [...w.toLowerCase()].some((c) => c in CONFUSABLES)) {
      return `The agent’s label for this option (“${shown}”) mixes Latin letters with look-alikes from other scripts.`;
    }
  }
  return null;
}

/**
 * Why the option's name contradicts its kind, as a sentence for the user; null when it does not. A name
 * that reads as rejecting on an allow kind (or the reverse), or that says "once" on an "always" kind (or
 * the reverse), contradicts it. The name is read as displayed (direction overrides applied) and as written.
 */
export function nameContradiction(option: Pick<PermissionOption, 'name' | 'kind'>): string | null {
  const raw = typeof option.name === 'string' ? option.name : '';
  const shown = displayedText(raw);
  return contradiction(shown, option.kind) ?? (shown !== raw.replace(new RegExp(BIDI_CONTROLS.source, 'g'), '') ? contradiction(raw, option.kind, shown) : null);
}

function contradiction(name: string, kind: PermissionOptionKind, shownAs = name): string | null {
  const allows = kind === 'allow_once' || kind === 'allow_always';
  const always = kind === 'allow_always' || kind === 'reject_always';
  const intent = nameIntent(name);
  const what = kindText(kind);
  if (intent === 'reject' && allows) return `The agent labelled this option “${shownAs}”, but it would ${what.toLowerCase()}.`;
  if (intent === 'allow' && !allows) return `The agent labelled this option “${shownAs}”, but it would ${what.toLowerCase()}.`;
  const scope = nameScope(name);
  if (scope === 'once' && always) return `The agent labelled this option “${shownAs}”, but it would ${what.toLowerCase()} (a rule is stored).`;
  if (scope === 'always' && !always) return `The agent labelled this option “${shownAs}”, but it is ${what.toLowerCase()} only.`;
  return null;
}
