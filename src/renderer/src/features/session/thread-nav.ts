import { createContext, useContext } from 'react';

/** What an entry of the thread can reach of the other entries (an elicitation: the tool call that asked). */
export interface ThreadNav {
  /** The tool call's title, or null when it is not in this thread. */
  toolTitle(toolCallId: string): string | null;
  /** Scrolls the thread to the tool call. */
  showTool(toolCallId: string): void;
}

export const ThreadNavContext = createContext<ThreadNav | null>(null);

export const useThreadNav = (): ThreadNav | null => useContext(ThreadNavContext);
