import { GitFork } from 'lucide-react';
import type { SessionLink } from '@shared/contract/history';
import { openTranscript } from '../../app/contributions';
import { useAgents } from '../agents';
import { openLiveSessionTab } from './open';
import { VisibleText, visibleText } from '../../ui/VisibleText';

const linkTitle = (link: SessionLink): string => link.title || 'Untitled session';

/** Opens a linked session (a fork, or the session it was forked from): its live tab when live, else its transcript. */
export function openLinkedSession(link: SessionLink, agentId: string, cwd: string, live: boolean): void {
  if (live) openLiveSessionTab(link.id, linkTitle(link));
  else openTranscript({ id: link.id, title: linkTitle(link), agentId, cwd });
}

function LinkButton({ link, agentId, cwd }: { link: SessionLink; agentId: string; cwd: string }) {
  const live = useAgents((s) => s.sessions);
  return (
    <button className="link-button fork-link" onClick={() => openLinkedSession(link, agentId, cwd, link.id in live)} data-session-id={link.id} title={`Open “${visibleText(linkTitle(link))}”`}>
      <VisibleText text={linkTitle(link)} />
    </button>
  );
}

/** "Forked from <parent>" and the session's forks, each a link (forks share the parent's agent and folder). */
export function ForkLinks({ forkedFrom, forks, agentId, cwd }: { forkedFrom: SessionLink | null; forks?: readonly SessionLink[]; agentId: string; cwd: string }) {
  if (!forkedFrom && !forks?.length) return null;
  return (
    <span className="fork-links" data-testid="fork-links">
      {forkedFrom && (
        <span data-testid="forked-from">
          <GitFork size={12} aria-hidden /> forked from <LinkButton link={forkedFrom} agentId={agentId} cwd={cwd} />
        </span>
      )}
      {forks && forks.length > 0 && (
        <span data-testid="forks">
          <GitFork size={12} aria-hidden /> {forks.length === 1 ? 'fork' : 'forks'}:{' '}
          {forks.map((f, i) => (
            <span key={f.id}>
              {i > 0 && ', '}
              <LinkButton link={f} agentId={agentId} cwd={cwd} />
            </span>
          ))}
        </span>
      )}
    </span>
  );
}
