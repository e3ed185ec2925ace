import { AppInfoContext } from '../../app/App';

export { basename } from '../../ui/format';

/** A project path for display: the home folder as ~. */
export function shortPath(p: string): string {
  const home = AppInfoContext.current?.homeDir?.replace(/[\\/]+$/, '');
  if (home && (p === home || p.startsWith(`${home}/`) || p.startsWith(`${home}\\`))) return `~${p.slice(home.length)}`;
  return p;
}

const rtf = typeof Intl !== 'undefined' && 'RelativeTimeFormat' in Intl ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : null;

/** "just now", "5 minutes ago", "yesterday", "3 days ago", else the date. */
export function relativeTime(ts: number, now = Date.now()): string {
  const diff = Math.max(0, now - ts);
  const min = 60_000;
  const hour = 60 * min;
  const day = 24 * hour;
  if (diff < min) return 'just now';
  if (!rtf) return new Date(ts).toLocaleString();
  if (diff < hour) return rtf.format(-Math.round(diff / min), 'minute');
  if (diff < day) return rtf.format(-Math.round(diff / hour), 'hour');
  if (diff < 7 * day) return rtf.format(-Math.round(diff / day), 'day');
  return formatDate(ts);
}

export function formatDate(ts: number): string {
  const d = new Date(ts);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) });
}

export function formatDateTime(ts: number): string {
  return new Date(ts).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** What the session row's status says. */
export const SESSION_STATUS_TEXT: Record<string, string> = {
  starting: 'Starting',
  idle: 'Ended',
  working: 'Interrupted',
  awaiting_permission: 'Interrupted',
  auth_required: 'Needed sign-in',
  failed: 'Failed',
  closed: 'Ended',
};

export const STOP_TEXT: Record<string, string> = {
  end_turn: 'Finished',
  cancelled: 'Cancelled',
  max_tokens: 'Hit the token limit',
  max_turn_requests: 'Hit the request limit',
  refusal: 'Refused',
};

export const KIND_TEXT: Record<string, string> = {
  prompt: 'Prompt',
  user: 'User',
  agent: 'Agent',
  thought: 'Thought',
  tool: 'Tool call',
  write: 'File write',
  terminal: 'Terminal',
  plan: 'Plan',
  stop: 'Turn end',
  title: 'Title',
  changes: 'Changed files',
};
