import { useTabs } from '../../state/tabs';

/** The title of a turn's review: which turn, by the time it started. */
export const turnReviewTitle = (startedAt: number): string =>
  `Changes of the turn at ${new Date(startedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`;

/** The same, short enough for a tab: "Changes · 09:41:25". */
export const turnTabTitle = (startedAt: number): string =>
  `Changes · ${new Date(startedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })}`;

/**
 * Opens (or focuses) the review of a turn's changes, or of the whole session (turnId null): one tab per turn,
 * found by what it shows (a tab brought back with the layout has another id).
 */
export function openReview({ sessionId, turnId, startedAt }: { sessionId: string; turnId: string | null; startedAt?: number }): string {
  const { tabs, activate, open } = useTabs.getState();
  const shown = Object.values(tabs).find((t) => t.kind === 'changes' && t.props.sessionId === sessionId && (t.props.turnId ?? null) === turnId);
  if (shown) {
    activate(shown.id);
    return shown.id;
  }
  const title = turnId ? (startedAt !== undefined ? turnTabTitle(startedAt) : 'Changes of an earlier turn') : 'Session changes';
  return open({ id: `changes:${sessionId}:${turnId ?? 'session'}`, kind: 'changes', title, props: { sessionId, turnId, ...(startedAt !== undefined ? { startedAt } : {}) } });
}
