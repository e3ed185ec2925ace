import { useCallback, useState } from 'react';
import { create } from 'zustand';

/**
 * UI state that must outlive a row of the virtualized thread (a row unmounts when scrolled away):
 * expanded/collapsed sections by key.
 */
const toggles = new Map<string, boolean>();

/**
 * Until the user toggles, the section follows `initial` as it changes (e.g. a tool call opens when a diff or a
 * terminal arrives in a later update); once toggled, the user's choice sticks.
 */
export function useToggle(key: string, initial: boolean): [boolean, (next?: boolean) => void] {
  const [chosen, setChosen] = useState<boolean | undefined>(() => toggles.get(key));
  const value = chosen ?? initial;
  const set = useCallback(
    (next?: boolean) => {
      const n = next ?? !value;
      toggles.set(key, n);
      setChosen(n);
    },
    [key, value],
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
