import type { BrowserContext } from 'playwright-core';
import type { ClientFrame, ServerFrame } from '../../src/shared/contract';

/**
 * Holds the app's answers to the requests `matches` picks, on the page's WebSocket, until `release` is called, as
 * a slow store or engine would: everything else passes through as it is. `asked` resolves at the first one held.
 */
export async function holdAnswers(context: BrowserContext, matches: (frame: ClientFrame) => boolean): Promise<{ asked: Promise<void>; release(): void }> {
  let release = () => {};
  let onAsked = () => {};
  const asked = new Promise<void>((r) => (onAsked = r));
  await context.routeWebSocket(/\/ws\b/, (ws) => {
    const server = ws.connectToServer();
    const held = new Set<number>();
    const waiting: string[] = [];
    let holding = true;
    release = () => {
      holding = false;
      for (const m of waiting.splice(0)) ws.send(m);
    };
    ws.onMessage((m) => {
      const frame = JSON.parse(String(m)) as ClientFrame;
      if (holding && matches(frame)) {
        held.add(frame.id);
        onAsked();
      }
      server.send(m);
    });
    server.onMessage((m) => {
      const frame = JSON.parse(String(m)) as ServerFrame;
      if (holding && frame.type === 'result' && held.has(frame.id)) waiting.push(String(m));
      else ws.send(m);
    });
  });
  return { asked, release: () => release() };
}
