import { useTabs } from '../../state/tabs';

/** Opens (or focuses) the review of a turn's changes, or of the whole session (turnId null). */
export function openReview({ sessionId, turnId, title }: { sessionId: string; turnId: string | null; title?: string }): string {
  const id = `changes:${sessionId}:${turnId ?? 'session'}`;
  return useTabs.getState().open({ id, kind: 'changes', title: title ?? (turnId ? 'Changes of a turn' : 'Session changes'), props: { sessionId, turnId } });
}
