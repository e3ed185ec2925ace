import { useEffect, useState } from 'react';
import { useApi } from '../../app/api-context';

/** While a session's container is made or started: the dev container CLI's last line (an image build, a pull). */
export function ContainerProgress({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const [line, setLine] = useState<string | null>(null);
  useEffect(() => api.on('containers.progress', (e) => e.sessionId === sessionId && e.line.trim() !== '' && setLine(e.line.trim())), [api, sessionId]);
  return (
    <p className="muted small" data-testid="container-progress">
      Making its container{line ? `: ${line}` : '…'}
    </p>
  );
}
