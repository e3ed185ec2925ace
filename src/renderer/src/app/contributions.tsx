import type { LucideIcon } from 'lucide-react';
import type { ComponentType, ReactNode } from 'react';
import type { Api } from '../ipc/client';
import type { Tab } from '../state/tabs';

/**
 * Extension points of the shell: each feature registers its tab views, sidebar sections and launcher
 * actions here (from its own module), so the shell does not import features one by one.
 */
export interface TabViewProps {
  tab: Tab;
  active: boolean;
}

export interface TabKind {
  view: ComponentType<TabViewProps>;
  /** Called when the tab is closed (release its resources). */
  onClose?(tab: Tab, api: Api): void | Promise<void>;
  icon?: LucideIcon;
  /**
   * What to keep of the tab for the next start (layout restore): the props to reopen it with, or null
   * to not reopen it. Without this the tab is not restored.
   */
  persist?(tab: Tab): Record<string, unknown> | null;
}

export interface SidebarSection {
  id: string;
  title: string;
  order: number;
  view: ComponentType;
}

export interface LauncherAction {
  id: string;
  label: string;
  description: string;
  order: number;
  run(api: Api): void | Promise<void>;
  render?(): ReactNode;
}

export const tabKinds = new Map<string, TabKind>();
export const sidebarSections: SidebarSection[] = [];
export const launcherActions: LauncherAction[] = [];
/** Extra content of the launcher (new tab page), e.g. the agent list to start a session with. */
export const launcherPanels: Array<{ id: string; order: number; view: ComponentType }> = [];

export function registerTabKind(kind: string, def: TabKind): void {
  tabKinds.set(kind, def);
}
export function registerSidebarSection(section: SidebarSection): void {
  sidebarSections.push(section);
  sidebarSections.sort((a, b) => a.order - b.order);
}
export function registerLauncherAction(action: LauncherAction): void {
  launcherActions.push(action);
  launcherActions.sort((a, b) => a.order - b.order);
}
/** A stored session, as a link to it names it. */
export interface StoredSessionRef {
  id: string;
  title: string;
  agentId: string;
  cwd: string;
}

let transcriptOpener: ((session: StoredSessionRef) => string) | null = null;

/**
 * How a stored session's transcript opens: the history feature provides it, so that a feature history builds
 * on (a live session's "forked from" link) can open one without importing history.
 */
export function registerTranscriptOpener(open: (session: StoredSessionRef) => string): void {
  transcriptOpener = open;
}
export function openTranscript(session: StoredSessionRef): string | null {
  return transcriptOpener ? transcriptOpener(session) : null;
}

export function registerLauncherPanel(panel: { id: string; order: number; view: ComponentType }): void {
  launcherPanels.push(panel);
  launcherPanels.sort((a, b) => a.order - b.order);
}

/** An action a live session's header offers (e.g. "Run this again" makes a task of it). */
export interface SessionAction {
  id: string;
  label: string;
  title: string;
  order: number;
  run(api: Api, sessionId: string): void | Promise<void>;
}
export const sessionActions: SessionAction[] = [];
export function registerSessionAction(action: SessionAction): void {
  sessionActions.push(action);
  sessionActions.sort((a, b) => a.order - b.order);
}

/** What a feature follows for the whole window once connected (called once per connection). */
export const connectionHooks: Array<(api: Api) => void> = [];
export function registerConnectionHook(hook: (api: Api) => void): void {
  connectionHooks.push(hook);
}

/** A view a feature keeps mounted over the whole window (its own dialog, shown when it has something to ask). */
export const overlays: ComponentType[] = [];
export function registerOverlay(view: ComponentType): void {
  overlays.push(view);
}

/** A view a feature adds to a Settings section (by the section's id), below its fields. */
export const settingsViews = new Map<string, ComponentType>();
export function registerSettingsView(section: string, view: ComponentType): void {
  settingsViews.set(section, view);
}
