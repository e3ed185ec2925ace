import { create } from 'zustand';

export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
}

interface NoticeState {
  notices: Notice[];
  push(level: Notice['level'], message: string): void;
  dismiss(id: number): void;
  /** Keeps a notice while the pointer is on it (`false`: its time runs again). */
  hold(id: number, held: boolean): void;
}

/** How long a notice stays: long enough to read; an error a while longer. */
export const NOTICE_MS: Record<Notice['level'], number> = { info: 6_000, warning: 10_000, error: 15_000 };

const timers = new Map<number, ReturnType<typeof setTimeout>>();

let next = 1;
export const useNotices = create<NoticeState>((set, get) => {
  const expire = (n: Notice) => {
    clearTimeout(timers.get(n.id));
    timers.set(
      n.id,
      setTimeout(() => get().dismiss(n.id), NOTICE_MS[n.level]),
    );
  };
  return {
    notices: [],
    push: (level, message) => {
      const notice = { id: next++, level, message };
      set((s) => ({ notices: [...s.notices.slice(-4), notice] }));
      expire(notice);
    },
    dismiss: (id) => {
      clearTimeout(timers.get(id));
      timers.delete(id);
      set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
    },
    hold: (id, held) => {
      const notice = get().notices.find((n) => n.id === id);
      if (!notice) return;
      if (held) clearTimeout(timers.get(id));
      else expire(notice);
    },
  };
});
