import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 28 §3/§4, a performance contract: a streamed chunk re-renders the message it grows, not the session's
 * header nor the messages before it. Counted through the hook React calls after every commit (the one React
 * DevTools uses, present in production builds): a component rendered in a commit holds new props.
 */

const suite = appSuite('stream-renders');

/** Installed before the page's scripts: counts, per element with a data-testid below, its component's renders. */
function countRenders(): void {
  const WATCHED = new Set(['session-header', 'agent-message']);
  interface Fiber {
    tag: number;
    child: Fiber | null;
    sibling: Fiber | null;
    return: Fiber | null;
    stateNode: unknown;
    memoizedProps: unknown;
  }
  // FunctionComponent, ForwardRef, SimpleMemoComponent (React's work tags).
  const COMPONENT_TAGS = new Set([0, 11, 15]);
  const lastProps = new WeakMap<Element, unknown>();
  const renders = new WeakMap<Element, number>();
  (window as unknown as { __renders: (el: Element) => number }).__renders = (el) => renders.get(el) ?? 0;
  (window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__: object }).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    isDisabled: false,
    renderers: new Map(),
    inject: () => 1,
    checkDCE: () => {},
    onScheduleFiberRoot: () => {},
    onCommitFiberUnmount: () => {},
    onPostCommitFiberRoot: () => {},
    onCommitFiberRoot(_id: number, root: { current: Fiber }) {
      const stack: Fiber[] = [root.current];
      while (stack.length > 0) {
        const fiber = stack.pop()!;
        if (fiber.sibling) stack.push(fiber.sibling);
        if (fiber.child) stack.push(fiber.child);
        const el = fiber.stateNode;
        if (fiber.tag !== 5 || !(el instanceof Element) || !WATCHED.has(el.getAttribute('data-testid') ?? '')) continue;
        let owner = fiber.return;
        while (owner && !COMPONENT_TAGS.has(owner.tag)) owner = owner.return;
        if (!owner || lastProps.get(el) === owner.memoizedProps) continue;
        lastProps.set(el, owner.memoizedProps);
        renders.set(el, (renders.get(el) ?? 0) + 1);
      }
    },
  };
}

describe('one streamed chunk', () => {
  it('re-renders the message it grows, not the header or the messages before it', async () => {
    const { page, errors } = await suite.open({
      empty: true,
      prepare: async (context) => {
        await context.addInitScript(countRenders);
      },
    });
    const row = await addScenarioAgent(page, 'Stream renders agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const renders = (el: ReturnType<typeof tab.getByTestId>) => el.evaluate((e) => (window as unknown as { __renders: (el: Element) => number }).__renders(e));
    const header = tab.getByTestId('session-header');
    const messages = tab.getByTestId('agent-message');
    expect(await renders(header)).toBeGreaterThan(0);

    // 20 chunks a second until the test stops it, a new message every 200 chunks (10 s each: the second is still
    // being written while the test looks at it, however busy the machine).
    await sendPrompt(tab, 'stream 20 600 40 200');
    await expect.poll(() => messages.count(), { timeout: WAIT.agent }).toBe(2);
    const first = messages.nth(0);
    const second = messages.nth(1);
    const before = { header: await renders(header), first: await renders(first), second: await renders(second) };
    // The second message grows, chunk after chunk (rendered each time)…
    await expect.poll(() => renders(second), { timeout: WAIT.agent }).toBeGreaterThan(before.second + 10);
    // …and nothing else was rendered again meanwhile (the turn still runs: its status has not changed).
    expect(await renders(first)).toBe(before.first);
    expect(await renders(header)).toBe(before.header);
    await tab.getByTestId('prompt-input').press('Escape');
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    expect(errors).toEqual([]);
  });
});
