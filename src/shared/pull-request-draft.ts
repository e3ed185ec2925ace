/**
 * A pull request's title and description drafted by the session's agent: the prompt it is sent, and the
 * reading of its reply. The reply is untrusted text: whatever shape it takes, what comes out is a one-line
 * title without control characters and a description of bounded size, which the user edits before sending.
 */

export const DRAFT_TITLE_MAX = 200;
export const DRAFT_BODY_MAX = 60_000;

export function pullRequestDraftPrompt(p: { branch: string; base: string; commits: readonly string[] }): string {
  const commits = p.commits.slice(0, 50).map((s) => `- ${s}`);
  return [
    `Draft a pull request for the branch ${p.branch} into ${p.base}.`,
    commits.length > 0 ? `Its commits:\n${commits.join('\n')}` : '',
    'Reply with only the draft: the title on the first line (under 72 characters), a blank line, then the description in Markdown (what changed and why, how it was tested). Do not push, commit or open the pull request.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

// C0 and C1 controls, DEL, and the bidirectional overrides and isolates (which can make text read other than it is).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const TERMINAL_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;

/** A reply line that introduces the draft rather than being part of it ("Here is a draft:", "Sure!"). */
const PREAMBLE = /^(?:(?:sure|okay|ok|certainly|of course)\b.{0,80}|.{0,160}:)$/i;
const TITLE_LABEL = /^(?:pr\s+|pull request\s+)?title\s*:\s*/i;
const BODY_LABEL = /^(?:body|description|summary)\s*:\s*/i;

/** The title and description in the agent's reply; null when it holds no title. */
export function parsePullRequestDraft(reply: string): { title: string; body: string } | null {
  let text = reply.replace(TERMINAL_SEQUENCES, '').replace(/\r\n?/g, '\n').replace(CONTROLS, '').trim();
  // The whole reply in one fenced block: its inside.
  const fenced = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n\1\s*$/.exec(text);
  if (fenced) text = fenced[2]!.trim();
  const lines = text.split('\n');
  let i = 0;
  const blank = () => {
    while (i < lines.length && lines[i]!.trim() === '') i++;
  };
  blank();
  // Chatter before the draft (only when a draft follows it).
  while (i < lines.length - 1 && PREAMBLE.test(lines[i]!.trim()) && !TITLE_LABEL.test(lines[i]!.trim())) {
    i++;
    blank();
    if (/^(`{3,}|~{3,})/.test(lines[i] ?? '')) i++;
  }
  if (i >= lines.length) return null;
  const title = cleanTitle(lines[i]!);
  i++;
  if (!title) return null;
  blank();
  if (i < lines.length && BODY_LABEL.test(stripEmphasis(lines[i]!.trim()))) {
    lines[i] = stripEmphasis(lines[i]!.trim()).replace(BODY_LABEL, '');
    if (lines[i]!.trim() === '') {
      i++;
      blank();
    }
  }
  let body = lines.slice(i).join('\n').trim();
  // A closing fence left over from a fenced draft after chatter.
  body = body.replace(/\n?(`{3,}|~{3,})\s*$/, '').trim();
  if (body.length > DRAFT_BODY_MAX) body = `${body.slice(0, DRAFT_BODY_MAX).replace(/[\ud800-\udbff]$/, '')}\n\n…`;
  return { title, body };
}

function stripEmphasis(line: string): string {
  return line.replace(/^(\*\*|__)([^*_]+?)\1/, '$2');
}

function cleanTitle(line: string): string {
  let t = line.trim();
  t = t.replace(/^#{1,6}\s+/, '');
  t = stripEmphasis(t).replace(TITLE_LABEL, '');
  t = t.replace(/^(\*\*|__)(.*)\1$/, '$2').trim();
  // Quotes or backticks around the whole title.
  const quoted = /^(["'`“‘])(.*)(["'`”’])$/.exec(t);
  if (quoted && quoted[2]!.trim()) t = quoted[2]!.trim();
  t = t.replace(/\s+/g, ' ').trim();
  if ([...t].length > DRAFT_TITLE_MAX) t = `${[...t].slice(0, DRAFT_TITLE_MAX - 1).join('')}…`;
  return t;
}
