import { create } from 'zustand';

const COLLAPSED_KEY = 'switchboard.sidebarCollapsed';

/** Whether the sidebar is folded away (kept per browser profile, as a window's own layout). */
export const useSidebar = create<{ collapsed: boolean; toggle(): void }>((set, get) => ({
  collapsed: localStorage.getItem(COLLAPSED_KEY) === '1',
  toggle: () => {
    const collapsed = !get().collapsed;
    localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
    set({ collapsed });
  },
}));
