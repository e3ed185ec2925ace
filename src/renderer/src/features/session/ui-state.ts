import { useCallback, useState } from 'react';
import { create } from 'zustand';

/**
 * UI state that must outlive a row of the virtualized thread (a row unmounts when scrolled away):
 * expanded/collapsed sections by key.
 */
const toggles = new Map<string, boolean>();

export function useToggle(key: string, initial: boolean): [boolean, (next?: boolean) => void] {
  const [value, setValue] = useState(() => toggles.get(key) ?? initial);
  const set = useCallback(
    (next?: boolean) => {
      setValue((v) => {
        const n = next ?? !v;
        toggles.set(key, n);
        return n;
      });
    },
    [key],
  );
  return [value, set];
}

const DIFF_KEY = 'switchboard.diffInline';

/** Side-by-side or inline diffs: one choice for the whole app, remembered. */
export const useDiffMode = create<{ inline: boolean; setInline(v: boolean): void }>((set) => ({
  inline: localStorage.getItem(DIFF_KEY) === '1',
  setInline(v) {
    localStorage.setItem(DIFF_KEY, v ? '1' : '0');
    set({ inline: v });
  },
}));
