/**
 * Heavy one-off work that is not urgent (building a Monaco diff or a terminal that scrolled into view: 30–50 ms
 * of the main thread each, and ~100 ms more for Monaco's first load) waits for a pause in the user's typing, so
 * that no keystroke waits behind it. The user is looking at what they type; the diff shows when they pause.
 */

/** No key for this long is a pause. */
export const TYPING_PAUSE_MS = 250;

let lastKey = Number.NEGATIVE_INFINITY;
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  const note = () => {
    lastKey = performance.now();
  };
  for (const type of ['keydown', 'beforeinput', 'compositionupdate'] as const) window.addEventListener(type, note, { capture: true, passive: true });
}

/** Runs `fn` once `delayMs` have passed and the user is not typing (see TYPING_PAUSE_MS); returns a cancel. */
export function afterTypingPause(fn: () => void, delayMs: number): () => void {
  listen();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const check = () => {
    const quietFor = performance.now() - lastKey;
    if (quietFor >= TYPING_PAUSE_MS) {
      timer = null;
      fn();
    } else timer = setTimeout(check, TYPING_PAUSE_MS - quietFor);
  };
  timer = setTimeout(check, delayMs);
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
}
