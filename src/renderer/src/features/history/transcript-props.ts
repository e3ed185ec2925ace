/** What a transcript tab shows: a stored session, at a message (a search hit) or at its end. */
export interface TranscriptProps {
  sessionId: string;
  seq?: number;
  nonce?: number;
  agentId?: string;
  cwd?: string;
}

export function transcriptProps(props: Record<string, unknown>): TranscriptProps | null {
  if (typeof props.sessionId !== 'string') return null;
  return {
    sessionId: props.sessionId,
    ...(typeof props.seq === 'number' ? { seq: props.seq } : {}),
    ...(typeof props.nonce === 'number' ? { nonce: props.nonce } : {}),
    ...(typeof props.agentId === 'string' ? { agentId: props.agentId } : {}),
    ...(typeof props.cwd === 'string' ? { cwd: props.cwd } : {}),
  };
}
