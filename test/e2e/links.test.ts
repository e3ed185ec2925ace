import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { recordCalls } from '../support/browser';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Links an agent sends (issue 12 §5, §6): they open in the system browser (app.openExternal) only after
 * the user has seen the whole URL and said Open; anything but http(s) is refused with a message. In browser
 * mode, where the server opens no browser, the page opens the link in a new tab itself (issue 25), only then.
 */

const suite = appSuite('links');


const opened = (calls: ReturnType<typeof recordCalls>) => calls.filter((c) => c.method === 'app.openExternal').map((c) => c.params.url);

/** A session in a page whose contract calls and popups are recorded. */
async function sessionWatchingLinks(agentName: string) {
  const { page, errors, context } = await suite.open({ empty: true });
  const calls = recordCalls(page);
  // The socket opened before the recorder: reload so its frames are seen.
  await page.reload();
  await page.getByTestId('workspace').waitFor();
  const popups: string[] = [];
  // Pages the app opens: their address once loaded (the example hosts answer locally).
  await context.route(/^https:\/\/(docs\.example\.com|term\.example\.org)\//, (route) => route.fulfill({ contentType: 'text/html', body: '<title>ok</title>' }));
  context.on('page', (p) => void p.waitForURL(/example/, { timeout: 30_000 }).then(() => popups.push(p.url()), () => popups.push(`not loaded: ${p.url()}`)));
  const row = await addScenarioAgent(page, agentName);
  const tab = await startSessionFromSidebar(page, row, suite.work);
  return { page, errors, context, calls, popups, tab };
}

describe('links from agent content', () => {
  it('a markdown link asks first, showing the whole URL; Cancel opens nothing, Open opens it (app.openExternal, then a new tab in browser mode); javascript:, file: and mailto: are refused', async () => {
    const { page, errors, calls, popups, tab } = await sessionWatchingLinks('Links agent');
    const url = 'https://docs.example.com/guide/a?x=1&y=two#top';
    await sendPrompt(tab, `say Read [the guide](${url}), [bad one](javascript:window.__pwned=1), [a file](file:///etc/passwd) and [mail](mailto:a@example.com).`);
    const link = tab.locator('.markdown a', { hasText: 'the guide' });
    await link.waitFor();
    const pageUrl = page.url();

    await link.click();
    const dialog = page.getByTestId('link-confirm');
    await dialog.waitFor();
    expect(await dialog.getByTestId('link-confirm-url').innerText()).toBe(url);
    expect(await dialog.getByTestId('link-confirm-host').innerText()).toBe('docs.example.com');
    await dialog.getByTestId('link-confirm-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForTimeout(200);
    expect(opened(calls)).toEqual([]);
    expect(popups).toEqual([]);

    // Escape cancels too.
    await link.click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(opened(calls)).toEqual([]);

    await link.click();
    await dialog.getByTestId('link-confirm-open').click();
    await expect.poll(() => opened(calls), { timeout: WAIT.server }).toEqual([url]);
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => popups, { timeout: WAIT.server }).toEqual([url]);

    for (const text of ['bad one', 'a file', 'mail']) {
      await tab.getByTestId('md-link-disabled').filter({ hasText: text }).click();
      const refused = page.getByTestId('link-refused');
      await refused.waitFor();
      expect(await refused.innerText()).toMatch(/not opened/i);
      await refused.getByTestId('link-refused-ok').click();
      await refused.waitFor({ state: 'detached' });
    }
    await page.waitForTimeout(200);
    expect(opened(calls)).toEqual([url]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(pageUrl);
    expect(popups).toEqual([url]);
    expect(errors).toEqual([]);
  });

  it('an OSC 8 link in an agent terminal asks first and opens through app.openExternal (a new tab only after Open, in browser mode)', async () => {
    const { page, errors, calls, popups, tab } = await sessionWatchingLinks('Terminal links agent');
    const url = 'https://term.example.org/path?q=1';
    const printf = `\\033]8;;${url}\\033\\\\CLICK-THE-LINK\\033]8;;\\033\\\\ and \\033]8;;file:///etc/passwd\\033\\\\FILE-LINK\\033]8;;\\033\\\\\\n`;
    await sendPrompt(tab, `terminal ${JSON.stringify({ command: 'printf', args: [printf] })}`);
    const terminal = tab.getByTestId('agent-terminal');
    await terminal.locator('.xterm-rows', { hasText: 'CLICK-THE-LINK' }).waitFor();
    await terminal.getByText('Process exited with code 0').waitFor();

    // xterm finds a link under the pointer on hover, and activates it on click.
    const clickText = async (text: string) => {
      const box = await terminal.locator('.xterm-rows span', { hasText: text }).first().boundingBox();
      if (!box) throw new Error(`${text} is not on screen`);
      const x = box.x + Math.min(box.width - 2, 20);
      const y = box.y + box.height / 2;
      await page.mouse.move(x, y, { steps: 4 });
      await page.waitForTimeout(100);
      await page.mouse.click(x, y);
    };
    // A file: link is no link at all.
    await clickText('FILE-LINK');
    await page.waitForTimeout(300);
    expect(await page.getByTestId('link-confirm').count()).toBe(0);

    const dialog = page.getByTestId('link-confirm');
    // The pointer must come onto the link for xterm to see it (again after the dialog covered it).
    const clickLink = () =>
      expect
        .poll(async () => {
          if ((await dialog.count()) === 0) {
            const away = await terminal.getByText('Process exited with code 0').boundingBox();
            if (away) await page.mouse.move(away.x + 5, away.y + 5);
            await clickText('CLICK-THE-LINK');
          }
          return dialog.count();
        })
        .toBe(1);
    await clickLink();
    expect(await dialog.getByTestId('link-confirm-url').innerText()).toBe(url);
    await dialog.getByTestId('link-confirm-cancel').click();
    await page.waitForTimeout(200);
    expect(opened(calls)).toEqual([]);
    expect(popups).toEqual([]);
    await clickLink();
    await dialog.getByTestId('link-confirm-open').click();
    await expect.poll(() => opened(calls), { timeout: WAIT.server }).toEqual([url]);
    await expect.poll(() => popups, { timeout: WAIT.server }).toEqual([url]);
    expect(errors).toEqual([]);
  });
});
