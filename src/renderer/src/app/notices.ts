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
}

let next = 1;
export const useNotices = create<NoticeState>((set) => ({
  notices: [],
  push: (level, message) => set((s) => ({ notices: [...s.notices.slice(-4), { id: next++, level, message }] })),
  dismiss: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
}));
