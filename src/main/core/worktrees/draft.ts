import type { PromptBlock } from '../../../shared/contract/sessions';
import { parsePullRequestDraft, pullRequestDraftPrompt } from '../../../shared/pull-request-draft';
import type { Disposable } from '../base/lifecycle';
import type { Host } from '../host/host';
import type { Outcome } from './publish';
import { commitsBetween } from './repo-git';
import { realish } from './folder';

/** What drafting needs of the sessions service: prompt a session, hear its turn end, read its reply. */
export interface DraftSessions {
  /** The session's folder (null: no live session of that id). */
  cwdOf(sessionId: string): string | null;
  prompt(sessionId: string, blocks: PromptBlock[]): { promptId: string };
  onTurnEnded(listener: (turn: { sessionId: string; promptId: string; stopReason: string | null; error: { message: string } | null }) => void): Disposable;
  /** The text of the agent's messages answering the prompt `promptId` (null: the prompt is not in the thread). */
  replyTo(sessionId: string, promptId: string): string | null;
}

const DRAFT_TIMEOUT_MS = 10 * 60_000;

/**
 * Asks the session's agent (which must work in `worktree`) for a pull request's title and description, and
 * reads them from its reply once the turn ends. Nothing is sent anywhere else: the user edits the draft first.
 */
export async function draftPullRequest(
  host: Host,
  sessions: DraftSessions,
  sessionId: string,
  w: { path: string; repo: string; branch: string; base: string },
): Promise<Outcome<{ title: string; body: string }>> {
  const cwd = sessions.cwdOf(sessionId);
  if (cwd === null) return { ok: false, error: { kind: 'no_draft', message: 'the session is not open' } };
  if (realish(cwd) !== realish(w.path)) return { ok: false, error: { kind: 'no_draft', message: `the session works in ${cwd}, not in this worktree` } };
  const commits = (await commitsBetween(host, w.repo, `refs/heads/${w.base}`, `refs/heads/${w.branch}`)).map((c) => c.subject).reverse();
  const text = pullRequestDraftPrompt({ branch: w.branch, base: w.base, commits });

  let promptId: string | null = null;
  const early: Array<{ promptId: string; stopReason: string | null; error: { message: string } | null }> = [];
  let settle: (end: { stopReason: string | null; error: { message: string } | null }) => void = () => {};
  const ended = new Promise<{ stopReason: string | null; error: { message: string } | null }>((resolve) => (settle = resolve));
  const link = sessions.onTurnEnded((t) => {
    if (t.sessionId !== sessionId) return;
    if (promptId === null) early.push(t);
    else if (t.promptId === promptId) settle(t);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    try {
      promptId = sessions.prompt(sessionId, [{ type: 'text', text }]).promptId;
    } catch (e) {
      return { ok: false, error: { kind: 'no_draft', message: (e as Error).message } };
    }
    // A turn that failed at once may have ended before prompt() returned.
    const already = early.find((t) => t.promptId === promptId);
    if (already) settle(already);
    const end = await Promise.race([ended, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DRAFT_TIMEOUT_MS)))]);
    if (end === null) return { ok: false, error: { kind: 'no_draft', message: 'the agent did not answer within 10 minutes' } };
    if (end.error) return { ok: false, error: { kind: 'no_draft', message: end.error.message } };
    if (end.stopReason === 'cancelled') return { ok: false, error: { kind: 'no_draft', message: 'the turn was cancelled' } };
    const reply = sessions.replyTo(sessionId, promptId) ?? '';
    const draft = parsePullRequestDraft(reply);
    if (!draft) return { ok: false, error: { kind: 'no_draft', message: reply.trim() ? 'the reply held no title' : 'the agent replied with nothing' } };
    return { ok: true, value: draft };
  } finally {
    clearTimeout(timer);
    link.dispose();
  }
}
