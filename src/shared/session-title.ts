import { visiblePromptText } from './prompt-words';

/**
 * The one rule for a session's title, wherever it is shown (its tab, history, the overview, compare, exports,
 * search): the user's own name for it, else the agent's title (session_info_update), else the visible words of
 * its first prompt with words; a title from a prompt or an agent is cleaned of directives (shared/prompt-words),
 * else (a fork) "Fork of <its parent's title>", else "<Agent> session". Later prompts do not change a title.
 * Agents are named as the user knows them, never by an internal id.
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

/** What names a session after its first prompt: the first line of its visible words, cut at a word boundary. */
export function promptSummary(text: string | null | undefined): string | null {
  for (const line of visiblePromptText(text ?? '').split('\n')) {
    const t = oneLine(line);
    if (t) return cut(t, PROMPT_TITLE_CHARS);
  }
  return null;
}

/** The title a session has of its own (null: none yet). */
export function storedTitle(sources: TitleSources): string | null {
  return givenTitle(sources.custom) ?? agentTitle(sources.agent) ?? promptSummary(sources.prompt);
}

/**
 * An agent's title, cleaned of a prompt's directives (agents often title a session with a raw prompt); its
 * invisible characters are kept, for the view to show them as marks (a name someone else chose).
 */
export function agentTitle(text: string | null | undefined): string | null {
  return givenTitle(visiblePromptText(text ?? '', { keepInvisible: true }));
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
