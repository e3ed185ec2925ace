import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { ThreadEntry } from '@shared/acp-thread';
import type { ComposerHandle } from './Composer';
import type { SessionController } from './controller';
import { isEditable } from '../../ui/format';
import type { ThreadHandle } from './Thread';

/**
 * A form the agent asks the user to fill takes the keyboard (its first field): when it comes in while the
 * user is not typing elsewhere (focus on the page, the tab or the thread; never from the prompt), and when
 * its tab is shown. Once it is answered, the keyboard goes back to the prompt.
 */
export function useElicitationFocus(p: {
  controller: SessionController;
  entries: readonly ThreadEntry[];
  active: boolean;
  root: RefObject<HTMLElement | null>;
  thread: RefObject<ThreadHandle | null>;
  composer: RefObject<ComposerHandle | null>;
}) {
  const { controller, entries, active, root, thread, composer } = p;
  const activeRef = useRef(active);
  activeRef.current = active;
  /** The form given the keyboard. */
  const answering = useRef<string | null>(null);

  const focus = useCallback(
    (requestId: string, onlyIfFree = false) => {
      const index = indexOf(controller.getView().thread.entries, requestId);
      if (index >= 0) thread.current?.scrollToEntry(index);
      // Its row is mounted once the thread has rendered it (a few frames at most); a prompt just sent is
      // emptied once its request returns, which may be after the question came in.
      let frames = 20;
      const tryFocus = () => {
        const field = root.current?.querySelector<HTMLElement>(
          `[data-testid=elicitation][data-request-id="${CSS.escape(requestId)}"] form :is(input, select, textarea, button):not([disabled])`,
        );
        if (field && (!onlyIfFree || keyboardIsFree(root.current, composer.current))) {
          field.focus();
          answering.current = requestId;
        } else if (--frames > 0) requestAnimationFrame(tryFocus);
      };
      requestAnimationFrame(tryFocus);
    },
    [controller, root, thread, composer],
  );

  useEffect(() => {
    const id = answering.current;
    if (id === null || !active) return;
    const e = entries[indexOf(entries, id)];
    if (e?.kind === 'elicitation' && e.state === 'pending') return;
    answering.current = null;
    const a = document.activeElement;
    if (a === null || a === document.body || a === root.current) composer.current?.focus();
  }, [entries, active, root, composer]);

  /** The tab is shown: the oldest pending form takes the keyboard (false: there is none). */
  const onShown = useCallback((): boolean => {
    const asking = oldestPendingForm(controller.getView().thread.entries);
    if (asking) focus(asking);
    return asking !== null;
  }, [controller, focus]);
  /** A new elicitation came in. */
  const onAsked = useCallback(
    (requestId: string, mode: 'form' | 'url'): void => {
      if (mode === 'form' && activeRef.current) focus(requestId, true);
    },
    [focus],
  );
  return { onShown, onAsked };
}

function indexOf(entries: readonly ThreadEntry[], requestId: string): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'elicitation' && e.requestId === requestId) return i;
  }
  return -1;
}

function oldestPendingForm(entries: readonly ThreadEntry[]): string | null {
  let found: string | null = null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'elicitation' && e.state === 'pending' && e.request.mode === 'form') found = e.requestId;
  }
  return found;
}

/**
 * Focus is on nothing in particular (the page, the tab, the thread, or the prompt left empty after sending,
 * as a permission request takes it): not in a field the user is typing in.
 */
function keyboardIsFree(tab: HTMLElement | null, composer: ComposerHandle | null): boolean {
  const a = document.activeElement;
  if (a === null || a === document.body || a === tab) return true;
  if (composer?.hasFocus()) return composer.isEmpty();
  const thread = tab?.querySelector('[data-testid=thread]');
  return Boolean(thread?.contains(a)) && !isEditable(a);
}
