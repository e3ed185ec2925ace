/**
 * The one rule for a session's title, wherever it is shown (its tab, history, the overview, compare, exports,
 * search): the user's own name for it, else the agent's title (session_info_update), else a summary of its first
 * prompt, else (a fork) "Fork of <its parent's title>", else "<Agent> session". Agents are named as the user knows them, never by an internal id.
 */

/** How long a title derived from a prompt may be, in characters (a word longer than that is cut). */
export const PROMPT_TITLE_CHARS = 60;
/** How long a title the user or the agent gave may be before it is cut (one line). */
export const GIVEN_TITLE_CHARS = 120;

/** The titles a session may have; the first one present wins. */
export interface TitleSources {
  custom?: string | null | undefined;
  agent?: string | null | undefined;
  prompt?: string | null | undefined;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
/**
 * A given title with runs of spaces and tabs folded, and nothing else changed: a line break or another control
 * character an agent put in stays, so that the page shows it as a token (ui/VisibleText) instead of hiding it.
 */
const folded = (text: string): string => text.replace(/[ \t]+/g, ' ').trim();

/** Cuts at a word boundary within `max` characters, marking the cut with an ellipsis. */
function cut(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  return `${(space >= max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.\-–—]+$/, '')}…`;
}

/** A title given by the user or the agent, as one line of bounded length; null when it holds nothing. */
export function givenTitle(text: string | null | undefined): string | null {
  const t = folded(text ?? '');
  return t ? cut(t, GIVEN_TITLE_CHARS) : null;
}

/** What names a session after its first prompt: the prompt's first non-empty line, cut at a word boundary. */
export function promptSummary(text: string | null | undefined): string | null {
  for (const line of (text ?? '').split(/\r?\n/)) {
    const t = oneLine(line);
    if (t) return cut(t, PROMPT_TITLE_CHARS);
  }
  return null;
}

/** The title a session has of its own (null: none yet). */
export function storedTitle(sources: TitleSources): string | null {
  return givenTitle(sources.custom) ?? givenTitle(sources.agent) ?? promptSummary(sources.prompt);
}

/**
 * The title to show: the session's own, else for a fork "Fork of <its parent's title>", else "<Agent> session".
 * `forkedFrom`: the parent's title, when the session is a fork (a fork's agent is its parent's).
 */
export function sessionTitle(own: string | null | undefined, agentName: string, forkedFrom?: string | null): string {
  const fallback = `${agentName} session`;
  return givenTitle(own) ?? (typeof forkedFrom === 'string' ? `Fork of ${givenTitle(forkedFrom) ?? fallback}` : fallback);
}

/** A custom agent's generated id (custom-3b111e2e-…): an id the user never chose. */
export const isGeneratedAgentId = (agentId: string): boolean => /^custom-[0-9a-f]{8}-/i.test(agentId);

/** The name the user knows an agent by: its name when it is still set up, else its id unless generated. */
export function agentLabel(agentId: string, name: string | null | undefined): string {
  if (name) return name;
  return isGeneratedAgentId(agentId) ? 'Removed custom agent' : agentId;
}
