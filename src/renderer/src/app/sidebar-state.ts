import { create } from 'zustand';

const COLLAPSED_KEY = 'switchboard.sidebarCollapsed';
/** The page's storage; absent where the renderer's modules load outside a page (its unit tests). */
const storage: Storage | null = typeof localStorage === 'undefined' ? null : localStorage;

/** Whether the sidebar is folded away (kept per browser profile, as a window's own layout). */
export const useSidebar = create<{ collapsed: boolean; toggle(): void }>((set, get) => ({
  collapsed: storage?.getItem(COLLAPSED_KEY) === '1',
  toggle: () => {
    const collapsed = !get().collapsed;
    storage?.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
    set({ collapsed });
  },
}));
