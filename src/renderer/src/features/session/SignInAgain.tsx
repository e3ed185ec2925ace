import { useState } from 'react';
import { AuthPanel, useAgents } from '../agents';

/** Under the thread's "signed out" notice: the agent's sign-in methods, one click away. */
export function SignInAgain({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const agent = useAgents((s) => {
    const agentId = s.sessions[sessionId]?.agentId;
    return agentId === undefined ? undefined : s.agents.find((a) => a.id === agentId);
  });
  if (!agent) return <div className="muted small">Sign in again from the agent’s Accounts in the Agents list.</div>;
  return (
    <div className="sign-in-again">
      <button className="link-button" onClick={() => setOpen(!open)} aria-expanded={open} data-testid="sign-in-again">
        {open ? '▾' : '▸'} Sign in again
      </button>
      {open && <AuthPanel agent={agent} />}
    </div>
  );
}
