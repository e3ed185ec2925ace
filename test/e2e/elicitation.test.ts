import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { recordCalls } from '../support/browser';
import { addScenarioAgent, recordNotifications, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * ACP elicitation (issue 14): the agent asks for input with a form built from its schema, or asks the user
 * to open a URL; the scenario agent says what it was answered (`elicitation: {...}`).
 */

const suite = appSuite('elicitation');


const FORM = {
  mode: 'form',
  message: 'Configure <img src=x onerror="window.__pwned=1"> the **project**',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Project name', description: 'Lower case letters and dashes', pattern: '^[a-z][a-z-]*$' },
      port: { type: 'integer', title: 'Port', minimum: 1024, maximum: 65535, default: 3000 },
      logging: { type: 'boolean', title: 'Enable logging', default: false },
      strategy: { type: 'string', title: 'Strategy', oneOf: [{ const: 'safe', title: 'Conservative' }, { const: 'fast', title: 'Aggressive' }] },
    },
    required: ['name', 'port'],
  },
};

async function setup() {
  const opened = await suite.open({ empty: true });
  const calls = recordCalls(opened.page);
  // The socket opened before the recorder: reload so its frames are seen.
  await opened.page.reload();
  await opened.page.getByTestId('workspace').waitFor();
  const name = `Elicit ${Math.random().toString(36).slice(2, 7)}`;
  const row = await addScenarioAgent(opened.page, name);
  const tab = await startSessionFromSidebar(opened.page, row, suite.work);
  const answers = () => tab.getByTestId('agent-message').filter({ hasText: 'elicitation:' });
  return { ...opened, calls, tab, answers, name };
}

describe('elicitation', () => {
  it('fills a form: required fields and the schema are checked before anything is sent; the answer is kept in the thread; a second one is declined', async () => {
    const { page, errors, tab, answers } = await setup();
    await sendPrompt(tab, `elicit ${JSON.stringify(FORM)}`);
    const card = tab.getByTestId('elicitation');
    await card.getByTestId('elicit-form').waitFor();
    // The agent's text is text: no markup is made of it.
    expect(await card.getByTestId('elicit-message').innerText()).toBe(FORM.message);
    expect(await card.locator('img').count()).toBe(0);
    expect(await card.getByTestId('elicit-field').evaluateAll((els) => els.map((e) => [e.getAttribute('data-name'), e.getAttribute('data-type')]))).toEqual([
      ['name', 'string'],
      ['port', 'integer'],
      ['logging', 'boolean'],
      ['strategy', 'enum'],
    ]);
    const field = (name: string) => card.locator(`[data-testid=elicit-field][data-name=${name}]`);
    expect(await field('port').locator('input').inputValue()).toBe('3000');
    await page.locator('[role=tab][aria-selected=true].status-attention').waitFor();

    // Submit with the required name missing, then with a bad name and port: errors, nothing sent.
    await card.getByTestId('elicit-accept').click();
    expect(await field('name').getByTestId('elicit-error').innerText()).toBe('Required.');
    await field('name').locator('input').fill('Not Valid');
    await field('port').locator('input').fill('80');
    await card.getByTestId('elicit-accept').click();
    await expect.poll(() => field('name').getByTestId('elicit-error').innerText(), { timeout: WAIT.page }).toMatch(/Must match the pattern/);
    expect(await field('port').getByTestId('elicit-error').innerText()).toBe('At least 1024.');
    expect(await answers().count()).toBe(0);

    await field('name').locator('input').fill('kite-app');
    await field('port').locator('input').fill('8080');
    await field('logging').locator('input').check();
    await field('strategy').locator('select').selectOption('fast');
    await card.getByTestId('elicit-accept').click();
    await answers().first().waitFor();
    const sent = { name: 'kite-app', port: 8080, logging: true, strategy: 'fast' };
    expect(JSON.parse((await answers().first().innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'accept', content: sent } });
    await expect.poll(() => card.getAttribute('data-state'), { timeout: WAIT.server }).toBe('accept');
    expect(await card.getByTestId('elicit-form').count()).toBe(0);
    const shown = await card.getByTestId('elicit-answers').innerText();
    for (const s of ['Project name', 'kite-app', 'Port', '8080', 'Enable logging', 'Yes', 'Strategy', 'Aggressive']) expect(shown).toContain(s);

    // The next one is declined.
    await sendPrompt(tab, `elicit ${JSON.stringify({ ...FORM, message: 'Again?' })}`);
    const second = tab.getByTestId('elicitation').nth(1);
    await second.getByTestId('elicit-decline').click();
    await expect.poll(() => answers().count(), { timeout: WAIT.agent }).toBe(2);
    expect(JSON.parse((await answers().nth(1).innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'decline' } });
    await expect.poll(() => second.getAttribute('data-state'), { timeout: WAIT.server }).toBe('decline');
    expect(await second.innerText()).toContain('You declined.');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('URL mode: shows the URL with its domain, opens it only through the link confirmation (in browser mode, a new tab of the page), then hears it is done', async () => {
    const { page, errors, context, tab, calls, answers } = await setup();
    const popups: string[] = [];
    await context.route('https://auth.example.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>signed in</title>' }));
    context.on('page', (p) => void p.waitForURL(/auth\.example\.com/, { timeout: 30_000 }).then(() => popups.push(p.url()), () => popups.push(`not loaded: ${p.url()}`)));
    const url = 'https://auth.example.com/connect?elicitation=gh-1';
    await sendPrompt(tab, `elicit ${JSON.stringify({ mode: 'url', elicitationId: 'gh-1', url, message: 'Authorize GitHub access' })}`);
    const card = tab.getByTestId('elicitation');
    await card.getByTestId('elicit-open').waitFor();
    expect(await card.getByTestId('elicit-domain').innerText()).toBe('auth.example.com');
    expect(await card.getByTestId('elicit-url').innerText()).toBe(url);
    const opened = () => calls.filter((c) => c.method === 'app.openExternal').map((c) => c.params.url);

    // Cancel in the confirmation: nothing opened, nothing answered.
    await card.getByTestId('elicit-open').click();
    const dialog = page.getByTestId('link-confirm');
    await dialog.waitFor();
    expect(await dialog.getByTestId('link-confirm-url').innerText()).toBe(url);
    expect(await dialog.getByTestId('link-confirm-host').innerText()).toBe('auth.example.com');
    await dialog.getByTestId('link-confirm-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    expect(opened()).toEqual([]);
    expect(await card.getAttribute('data-state')).toBe('pending');

    // A blocked pop-up: the user is told, the agent hears nothing, the card still asks.
    await page.evaluate(() => {
      const w = window as unknown as { __open: typeof window.open };
      w.__open = window.open;
      window.open = () => null;
    });
    await card.getByTestId('elicit-open').click();
    await dialog.getByTestId('link-confirm-open').click();
    await expect.poll(opened, { timeout: WAIT.server }).toEqual([url]);
    await expect.poll(() => page.locator('.notices .notice').filter({ hasText: 'The link was not opened' }).count(), { timeout: WAIT.page }).toBe(1);
    expect(await card.getAttribute('data-state')).toBe('pending');
    expect(await answers().count()).toBe(0);
    await page.evaluate(() => {
      window.open = (window as unknown as { __open: typeof window.open }).__open;
    });

    await card.getByTestId('elicit-open').click();
    await dialog.getByTestId('link-confirm-open').click();
    await expect.poll(opened, { timeout: WAIT.server }).toEqual([url, url]);
    await expect.poll(() => popups, { timeout: WAIT.server }).toEqual([url]);
    await answers().first().waitFor();
    expect(JSON.parse((await answers().first().innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'accept' } });
    await expect.poll(() => card.innerText(), { timeout: WAIT.server }).toContain('waiting for the agent');

    await sendPrompt(tab, 'elicit-complete gh-1');
    await expect.poll(() => card.getAttribute('data-completed'), { timeout: WAIT.agent }).toBe('true');
    expect(await card.innerText()).toContain('the agent says it is done');

    // A host in punycode (imitating another name) is shown as such, with a warning; declined here.
    await sendPrompt(tab, `elicit ${JSON.stringify({ mode: 'url', elicitationId: 'gh-2', url: 'https://\u0430pple.com/login', message: 'Sign in' })}`);
    const spoof = tab.getByTestId('elicitation').nth(1);
    await spoof.getByTestId('elicit-punycode').waitFor();
    expect(await spoof.getByTestId('elicit-domain').innerText()).toBe('xn--pple-43d.com');
    await spoof.getByTestId('elicit-decline').click();
    await expect.poll(() => answers().count(), { timeout: WAIT.agent }).toBe(2);
    expect(JSON.parse((await answers().nth(1).innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'decline' } });
    expect(opened()).toEqual([url, url]);

    // Kept in history: the transcript shows it as it ended, with nothing left to click.
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await page.locator('[role=tab][aria-selected=true] .tab-close').first().click();
    const row = page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"]`);
    await row.getByTestId('history-open').click();
    const stored = page.locator('.tab-panel:not([hidden]) [data-testid=transcript] [data-testid=elicitation]').first();
    await stored.waitFor();
    expect([await stored.getAttribute('data-state'), await stored.getAttribute('data-completed')]).toEqual(['accept', 'true']);
    expect(await stored.getByTestId('elicit-domain').innerText()).toBe('auth.example.com');
    expect(await stored.locator('button').count()).toBe(0);
    expect(popups).toEqual([url]);
    expect(errors).toEqual([]);
  });

  it('a hostile pattern with its hostile default: Submit answers at once and the page keeps responding; a pattern RE2 cannot run is refused to the agent', async () => {
    const { page, errors, tab, answers } = await setup();
    const hostile = {
      mode: 'form',
      message: 'Name it',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^(a{0,30}){8}$', default: `${'a'.repeat(241)}b` } }, required: ['name'] },
    };
    await sendPrompt(tab, `elicit ${JSON.stringify(hostile)}`);
    const card = tab.getByTestId('elicitation');
    await card.getByTestId('elicit-form').waitFor();
    const field = card.locator('[data-testid=elicit-field][data-name=name]');
    // A frame counter: a page frozen by the match would not advance it while the error is awaited.
    await page.evaluate(() => {
      const w = window as unknown as { __frames: number };
      w.__frames = 0;
      const tick = () => (w.__frames++, requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    });
    await card.getByTestId('elicit-accept').click();
    await expect.poll(() => field.getByTestId('elicit-error').innerText(), { timeout: WAIT.page }).toBe('Must match the pattern ^(a{0,30}){8}$.');
    const before = await page.evaluate(() => (window as unknown as { __frames: number }).__frames);
    await expect.poll(() => page.evaluate(() => (window as unknown as { __frames: number }).__frames), { timeout: WAIT.page }).toBeGreaterThan(before + 5);
    await field.locator('input').fill('a'.repeat(240));
    await card.getByTestId('elicit-accept').click();
    await answers().first().waitFor();
    expect(JSON.parse((await answers().first().innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'accept', content: { name: 'a'.repeat(240) } } });

    // Lookbehind cannot run in a linear-time engine: the agent hears why, nothing is shown to fill.
    await sendPrompt(tab, `elicit ${JSON.stringify({ ...hostile, requestedSchema: { type: 'object', properties: { x: { type: 'string', pattern: '(?<=a)b' } } } })}`);
    await expect.poll(() => answers().count(), { timeout: WAIT.agent }).toBe(2);
    expect(await answers().nth(1).innerText()).toMatch(/linear-time engine/);
    expect(errors).toEqual([]);
  });

  it('notifies the desktop when unfocused; a pending form is dismissed when the turn is stopped', async () => {
    const { page, errors, tab, answers, name } = await setup();
    const notes = await recordNotifications(page);
    await sendPrompt(tab, `elicit ${JSON.stringify(FORM)}`);
    const card = tab.getByTestId('elicitation');
    await card.getByTestId('elicit-form').waitFor();
    await expect.poll(notes, { timeout: WAIT.server }).toEqual([`${name} asks you something`]);
    await tab.getByTestId('stop-button').click();
    await answers().first().waitFor();
    expect(JSON.parse((await answers().first().innerText()).replace('elicitation: ', ''))).toEqual({ ok: true, result: { action: 'cancel' } });
    await expect.poll(() => card.getAttribute('data-state'), { timeout: WAIT.server }).toBe('cancel');
    expect(await card.getByTestId('elicit-form').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
