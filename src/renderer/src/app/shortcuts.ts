import { useEffect } from 'react';
import type { KeyBinding } from '@shared/contract/settings';
import type { Api } from '../ipc/client';
import { useTabs } from '../state/tabs';
import { focusNextNeedingYou } from './attention';
import { closeTab, openLauncher } from './tab-actions';
import { useSidebar } from './sidebar-state';
import { settingNow, useSetting } from './settings';

/** A command a shortcut runs. Its keys are its defaults; the Keyboard settings may change them. */
export interface ShortcutCommand {
  /** Stable id, the key of `keyboard.bindings` ('tabs.new'). */
  id: string;
  description: string;
  /** Default bindings, e.g. { keys: 'Mod+Shift+T', inTerminal: true }. */
  keys: KeyBinding[];
  run(api: Api): void;
}

export const isMac = typeof navigator !== 'undefined' && navigator.platform.toLowerCase().includes('mac');

const bind = (keys: string, inTerminal = true): KeyBinding => ({ keys, inTerminal });

export const shortcuts: ShortcutCommand[] = [
  // Mod+T and Mod+W belong to the shell in a terminal (Ctrl+T, Ctrl+W): there only their Shift forms work.
  { id: 'tabs.new', description: 'New tab', keys: [bind('Mod+T', false), bind('Mod+Shift+T')], run: () => openLauncher() },
  { id: 'tabs.close', description: 'Close tab', keys: [bind('Mod+W', false), bind('Mod+Shift+W')], run: (api) => closeActive(api) },
  { id: 'tabs.next', description: 'Next tab', keys: [bind('Ctrl+Tab'), bind('Ctrl+PageDown')], run: () => useTabs.getState().cycle(1) },
  { id: 'tabs.previous', description: 'Previous tab', keys: [bind('Ctrl+Shift+Tab'), bind('Ctrl+PageUp')], run: () => useTabs.getState().cycle(-1) },
  { id: 'panes.splitRight', description: 'Split right', keys: [bind('Mod+\\')], run: () => void useTabs.getState().split('row') },
  { id: 'panes.splitDown', description: 'Split down', keys: [bind('Mod+Shift+|')], run: () => void useTabs.getState().split('column') },
  { id: 'sessions.nextNeedingYou', description: 'Next session that needs you', keys: [bind('Mod+J')], run: () => void focusNextNeedingYou() },
  { id: 'view.toggleSidebar', description: 'Show or hide the sidebar', keys: [bind('Mod+B', false)], run: () => useSidebar.getState().toggle() },
  ...[1, 2, 3, 4].map((n) => ({
    id: `panes.focus${n}`,
    description: `Focus pane ${n}`,
    keys: [bind(`Mod+${n}`)],
    run: () => {
      const pane = useTabs.getState().panes[n - 1];
      if (pane) useTabs.getState().focusPane(pane.id);
    },
  })),
];

function closeActive(api: Api): void {
  const s = useTabs.getState();
  const pane = s.panes.find((p) => p.id === s.focusedPaneId);
  if (pane?.activeTabId) closeTab(pane.activeTabId, api);
}

export function registerShortcut(command: ShortcutCommand): void {
  shortcuts.push(command);
}

/** The bindings in force for a command: the user's, or its defaults. */
export function bindingsOf(command: ShortcutCommand, changed: Readonly<Record<string, KeyBinding[]>>): KeyBinding[] {
  return Object.prototype.hasOwnProperty.call(changed, command.id) ? changed[command.id]! : command.keys;
}

/** The bindings in force for every command (re-renders when the Keyboard settings change). */
export function useBindings(): Readonly<Record<string, KeyBinding[]>> {
  return useSetting('keyboard.bindings');
}

/** One form of a combination, so 'Shift+Mod+t' and 'Mod+Shift+T' compare equal (Mod resolved for this system). */
export function normalizeCombo(keys: string): string {
  const parts = keys.split('+');
  const key = parts.pop()!;
  const mods = new Set(parts.map((p) => (p === 'Mod' ? (isMac ? 'Meta' : 'Ctrl') : p)));
  return [...['Ctrl', 'Meta', 'Alt', 'Shift'].filter((m) => mods.has(m)), key.length === 1 ? key.toUpperCase() : key].join('+');
}

const NAMED_KEYS = new Set(['Tab', 'Enter', 'Escape', 'Backspace', 'Delete', 'Insert', 'Home', 'End', 'PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Space']);

/** The combination a key press makes, as bindings write it; null for a press of modifiers alone or an unusable key. */
export function comboOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): string | null {
  if (['Control', 'Meta', 'Alt', 'Shift', 'CapsLock', 'Dead', 'Unidentified', 'Process'].includes(e.key)) return null;
  const key = e.key === ' ' ? 'Space' : e.key;
  if (key.length !== 1 && !NAMED_KEYS.has(key) && !/^F\d{1,2}$/.test(key)) return null;
  if (key === '+') return null;
  const mods = [e.ctrlKey && 'Ctrl', e.metaKey && 'Meta', e.altKey && 'Alt', e.shiftKey && 'Shift'].filter(Boolean) as string[];
  // Mod, so a binding made on one system means the same on the other.
  const modKey = isMac ? 'Meta' : 'Ctrl';
  const shown = mods.map((m) => (m === modKey ? 'Mod' : m));
  return [...shown, key.length === 1 ? key.toUpperCase() : key].join('+');
}

/** How a combination reads on this system ('Ctrl + Shift + T', '⌘ + ,'). */
export function showCombo(keys: string): string {
  return keys
    .replace(/\bMod\b/g, isMac ? '⌘' : 'Ctrl')
    .split('+')
    .join(' + ');
}

/** Other commands a combination is bound to (to say so before it is taken from them). */
export function commandsBoundTo(keys: string, except: string, changed: Readonly<Record<string, KeyBinding[]>>): ShortcutCommand[] {
  const want = normalizeCombo(keys);
  return shortcuts.filter((c) => c.id !== except && bindingsOf(c, changed).some((b) => normalizeCombo(b.keys) === want));
}

/** While the Keyboard settings record a new combination, no shortcut runs. */
let recording = false;
export function setRecordingShortcut(on: boolean): void {
  recording = on;
}

export function useShortcuts(api: Api): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (recording || e.defaultPrevented) return;
      const combo = comboOf(e);
      if (!combo) return;
      const pressed = normalizeCombo(combo);
      const inTerminal = e.target instanceof Element && e.target.closest('.xterm') !== null;
      const changed = settingNow('keyboard.bindings');
      for (const command of shortcuts) {
        const hit = bindingsOf(command, changed).find((b) => normalizeCombo(b.keys) === pressed && (!inTerminal || b.inTerminal));
        if (!hit) continue;
        e.preventDefault();
        e.stopPropagation();
        command.run(api);
        return;
      }
    };
    // Capture phase: before the terminal or an editor swallows the key.
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [api]);
}

/** The keys that run a command now, as shown to the user ("Ctrl+T"), following the user's bindings; '' when unbound. */
export function useShortcutHint(commandId: string): string {
  const changed = useBindings();
  const command = shortcuts.find((c) => c.id === commandId);
  const first = command ? bindingsOf(command, changed)[0] : undefined;
  return first ? showCombo(first.keys) : '';
}

/** `label (keys)`, or the label alone when the command has no keys. */
export const withHint = (label: string, hint: string): string => (hint ? `${label} (${hint})` : label);
