import { isRequestName, type Result } from '../../../../shared/contract';
import type { ThreadState } from '../../../../shared/acp-thread';
import type { Api } from '../../ipc/client';
import { useTabs } from '../../state/tabs';
import { basename } from './format';

export interface FileContent {
  text: string;
  /** Where the text came from, when it is not the file as it is now on disk. */
  note: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The text of a file inside the session roots, to show a tool call location. The contract has no request
 * to read a file yet (wanted: `sessions.readFile({sessionId, path}) → {content}`, confined to the session
 * roots); it is used when the core offers it. Until then: the content the agent last wrote through
 * fs/write_text_file (recorded in full), else the newest full diff of the file in the thread.
 */
export async function readSessionFile(api: Api, sessionId: string, path: string, thread: ThreadState | null): Promise<FileContent | { error: string }> {
  if (isRequestName('sessions.readFile')) {
    const call = api.call as unknown as (name: string, params: unknown) => Promise<Result<unknown>>;
    const r = await call('sessions.readFile', { sessionId, path });
    if (r.ok && isRecord(r.value) && typeof r.value.content === 'string') return { text: r.value.content, note: null };
    if (!r.ok && r.error.code !== 'unknown_method') return { error: r.error.message };
  }
  const writes = await api.call('sessions.fileWrites', { sessionId });
  if (writes.ok) {
    const mine = writes.value.writes.filter((w) => w.path === path && w.revertedAt === null).sort((a, b) => b.ts - a.ts)[0];
    if (mine) {
      const content = await api.call('sessions.fileWriteContent', { writeId: mine.id });
      if (content.ok) return { text: content.value.newContent, note: 'As the agent last wrote it in this session.' };
    }
  }
  if (thread) {
    for (let i = thread.entries.length - 1; i >= 0; i--) {
      const e = thread.entries[i]!;
      if (e.kind !== 'tool_call') continue;
      for (const c of e.content) {
        if (c.type === 'diff' && c.path === path) return { text: c.newText, note: 'From the agent’s diff of this file (it may show only part of it).' };
      }
    }
  }
  return { error: 'Switchboard cannot read this file yet: only files the agent wrote or showed as a diff can be opened.' };
}

export function openFileTab(sessionId: string, path: string, line: number | null): void {
  const id = `file:${sessionId}:${path}:${line ?? ''}`;
  useTabs.getState().open({ id, kind: 'session-file', title: `${basename(path)}${line ? `:${line}` : ''}`, props: { sessionId, path, line } });
}
