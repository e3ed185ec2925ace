import type { Api } from '../../ipc/client';
import { useTabs } from '../../state/tabs';
import { basename } from '../../ui/format';

export interface FileContent {
  text: string;
}

/** The text of a file inside the session's roots (sessions.readFile), to show a tool call location. */
export async function readSessionFile(api: Api, sessionId: string, path: string, agentRules = false): Promise<FileContent | { error: string }> {
  // An agent's own rule file (listed on the permissions page) may lie outside the session's roots (its home).
  const r = agentRules ? await api.call('permissionRules.readAgentFile', { path }) : await api.call('sessions.readFile', { sessionId, path });
  return r.ok ? { text: r.value.content } : { error: r.error.message };
}

export function openFileTab(sessionId: string, path: string, line: number | null): void {
  const id = `file:${sessionId}:${path}:${line ?? ''}`;
  useTabs.getState().open({ id, kind: 'session-file', title: `${basename(path)}${line ? `:${line}` : ''}`, props: { sessionId, path, line } });
}
