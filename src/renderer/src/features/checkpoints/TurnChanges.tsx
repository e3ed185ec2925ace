import type { TurnCheckpoint } from '@shared/contract/checkpoints';
import { describeChanges } from './state';
import { openReview } from './open';
import { VisibleText } from '../../ui/VisibleText';

/**
 * Under a finished turn: what it changed in the session's folders (whoever wrote the files), and a way
 * into the review. Says so when another session worked in the same folder at the same time.
 */
export function TurnChanges({ sessionId, turns }: { sessionId: string; turns: readonly TurnCheckpoint[] }) {
  const recorded = turns.filter((t) => t.state === 'recorded' && t.changes);
  const failed = turns.find((t) => t.state === 'failed');
  const pending = turns.some((t) => t.state === 'running' || t.state === 'recording');
  const changed = recorded.filter((t) => (t.changes?.files.length ?? 0) > 0);
  const overlaps = [...new Map(turns.flatMap((t) => t.overlaps).map((o) => [o.sessionId, o])).values()];
  const flagged = recorded.reduce((n, t) => n + (t.changes?.summary.flagged ?? 0), 0);
  const ignored = recorded.reduce((n, t) => n + (t.changes?.summary.ignored ?? 0), 0);
  const notices = turns.map((t) => t.notice).filter((n): n is string => !!n);
  const noticeView = notices.map((n) => (
    <span key={n} className="turn-notice small" role="status" data-testid="turn-notice">
      {n}
    </span>
  ));
  if (!failed && !pending && changed.length === 0 && overlaps.length === 0) {
    if (notices.length > 0) {
      return (
        <div className="turn-changes none muted small" data-testid="turn-changes" data-state="none">
          No file changed in this turn. {noticeView}
        </div>
      );
    }
    return (
      <div className="turn-changes none muted small" data-testid="turn-changes" data-state="none">
        No file changed in this turn.
      </div>
    );
  }
  return (
    <div className="turn-changes" data-testid="turn-changes" data-state={pending ? 'pending' : failed ? 'failed' : 'recorded'}>
      {pending && <span className="muted small">Recording the changes of this turn…</span>}
      {failed && <span className="error small">Changes could not be recorded: {failed.error}</span>}
      {changed.map((t) => (
        <button key={t.id} className="turn-changes-button" onClick={() => openReview({ sessionId, turnId: t.promptId, startedAt: t.startedAt })} data-testid="turn-changes-open" title={t.folder}>
          <strong>Changes</strong> {describeChanges(t.changes)}
          {turns.length > 1 && <span className="muted small"> in <VisibleText text={t.folder} /></span>}
        </button>
      ))}
      {flagged > 0 && (
        <span className="turn-flagged small" data-testid="turn-flagged" title="Git hooks or config, .envrc, editor tasks, package scripts: files that make tools run code">
          ⚠ {flagged === 1 ? '1 change' : `${flagged} changes`} can make tools run code: review before you commit, open the folder or install.
        </span>
      )}
      {ignored > 0 && (
        <span className="muted small" data-testid="turn-ignored">
          {ignored === 1 ? '1 ignored file' : `${ignored} ignored files`} changed (listed by size, content not kept).
        </span>
      )}
      {noticeView}
      {overlaps.length > 0 && (
        <span className="turn-overlap small" data-testid="turn-overlap">
          Also changed while {overlaps.map((o) => `‘${o.label}’`).join(', ')} {overlaps.length === 1 ? 'was' : 'were'} working here: some of these changes may be theirs.
        </span>
      )}
    </div>
  );
}
