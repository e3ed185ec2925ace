import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Download, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { AcpScript, seedHistory, type SeedSession } from '../support/history-seed';
import { layoutSaved } from '../support/ui';

/** A download's text (saved here: the suite's Chromium is shared over a connection, where a download has no local path). */
async function downloaded(download: Download): Promise<string> {
  const file = join(tempDir('sb-download-'), download.suggestedFilename());
  await download.saveAs(file);
  return readFileSync(file, 'utf8');
}

/**
 * Session history in the renderer, end to end in Chromium: the built app in browser mode on a store
 * seeded (through the app's message log and history indexer) with past sessions of several projects
 * and agents, one of them long, one with hostile text.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();


function sessions(): SeedSession[] {
  const api1 = new AcpScript('acp-api-1', now - 2 * HOUR).start('/work/api');
  const p1 = api1.prompt('Fix the authentication refresh bug in login.ts, it breaks the quasar login');
  api1.agent('I rotated the refresh token in src/auth/login.ts so quasar sessions stay valid.');
  api1.tool('t-edit', 'Edit src/auth/login.ts', 'edit', {
    paths: ['/work/api/src/auth/login.ts'],
    diff: { path: '/work/api/src/auth/login.ts', oldText: 'const ttl = 0;\n', newText: 'const ttl = 3600;\n' },
  });
  api1.stop(p1);
  const p2 = api1.prompt('Now run the tests');
  api1.tool('t-test', 'Run flakysnapshot suite', 'execute', { text: '12 passed' });
  api1.agent('All tests pass.');
  api1.stop(p2);

  const api2 = new AcpScript('acp-api-2', now - 5 * HOUR).start('/work/api');
  api2.turn('Add pagination to the invoices endpoint', 'Added cursor pagination to the quasar invoices endpoint.');
  const bad = api2.prompt('Deploy the kubernetes helm chart for quasar');
  api2.fail(bad, 'Internal error: ECONNRESET while talking to the cluster');

  const web1 = new AcpScript('acp-web-1', now - 26 * HOUR).start('/work/web');
  web1.turn('<img src=x onerror=window.__pwned=1> please render this', 'Rendered: <img src=x onerror=window.__pwned=2> done');

  const web2 = new AcpScript('acp-web-2', now - 10 * DAY).start('/work/web');
  const p3 = web2.prompt('Refactor the websocket reconnect logic with quasar backoff');
  web2.write('/work/web/src/net/socket.ts', 'export const reconnect = () => backoff();\n');
  web2.agent('Moved the reconnect logic into src/net/socket.ts.');
  web2.stop(p3);

  // A long session: 400 turns, one rare word deep inside it.
  const docs = new AcpScript('acp-docs', now - 3 * DAY).start('/work/docs');
  for (let i = 1; i <= 400; i++) docs.turn(`Step ${i}: update section ${i} of the guide`, `Updated section ${i}.${i === 350 ? ' The zanzibarquux example now compiles.' : ''}`);

  return [
    { id: 'api-1', agentId: 'claude', cwd: '/work/api', createdAt: now - 2 * HOUR, messages: api1.messages },
    { id: 'api-2', agentId: 'gemini', cwd: '/work/api', createdAt: now - 5 * HOUR, messages: api2.messages },
    { id: 'web-1', agentId: 'claude', cwd: '/work/web', createdAt: now - 26 * HOUR, messages: web1.messages },
    { id: 'web-2', agentId: 'claude', cwd: '/work/web', createdAt: now - 10 * DAY, messages: web2.messages },
    { id: 'docs', agentId: 'gemini', cwd: '/work/docs', createdAt: now - 3 * DAY, messages: docs.messages },
  ];
}

const suite = appSuite('history', undefined, {
  seed(dataDir, work) {
    const { command, args } = scenarioAgentCommand();
    // A past session with the scripted agent in a real folder, to continue it.
    const old = new AcpScript('acp-old', now - 4 * DAY).start(work);
    old.turn('Write the release notes for version 2', 'Wrote the release notes for version 2 in NOTES.md.');
    seedHistory(dataDir, {
      agents: [
        { id: 'claude', name: 'Claude Code', command: 'false' },
        { id: 'gemini', name: 'Gemini CLI', command: 'false' },
        { id: 'scenario', name: 'Scenario', command, args },
      ],
      sessions: [...sessions(), { id: 'old', agentId: 'scenario', cwd: work, createdAt: now - 4 * DAY, messages: old.messages }],
    });
  },
});

/** A fresh page with no tabs open (the saved layout of an earlier test is closed). */
async function open(): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await suite.open();
  await page.getByTestId('history-row').first().waitFor();
  while ((await page.locator('.tab-close').count()) > 0) await page.locator('.tab-close').first().click();
  return { page, errors };
}

const visible = (page: Page, testId: string): Locator => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

async function openSearch(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+k');
  const input = page.getByTestId('history-search-input');
  await input.waitFor();
  return input;
}

async function search(page: Page, query: string): Promise<Locator> {
  const input = page.getByTestId('history-search-input');
  if (!(await input.isVisible())) await openSearch(page);
  await input.fill(query);
  // Results come as you type (debounced): wait for the ones of this query (hits or the empty note).
  await page.locator(`[data-testid=history-hits][data-query="${query}"], [data-testid=history-search-empty][data-query="${query}"]`).first().waitFor();
  return page.getByTestId('history-hit');
}

const hitTexts = (hits: Locator) => hits.evaluateAll((els) => els.map((e) => ({ session: e.getAttribute('data-session-id'), kind: e.getAttribute('data-kind') })));

describe('history list', () => {
  it('groups sessions by project and agent, with status and counts', async () => {
    const { page, errors } = await open();
    const sidebar = page.getByTestId('sidebar-history');
    // The sidebar: most recent first.
    const ids = await sidebar.getByTestId('history-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session-id')));
    expect(ids.slice(0, 3)).toEqual(['api-1', 'api-2', 'web-1']);
    await expect(sidebar.getByTestId('history-row').first().textContent()).resolves.toContain('Fix the authentication refresh bug');
    // Each row says which agent, in which folder (not only in a tooltip).
    const where = sidebar.getByTestId('history-row').first().getByTestId('history-row-where');
    await expect(where.innerText()).resolves.toMatch(/Claude Code\s+\/work\/api/);

    await sidebar.getByTestId('history-open-tab').click();
    const tab = visible(page, 'history-tab');
    await tab.getByTestId('history-project').first().waitFor();
    const groups = await tab.getByTestId('history-project').evaluateAll((projects) =>
      projects.map((p) => ({
        cwd: p.getAttribute('data-cwd'),
        agents: [...p.querySelectorAll('[data-testid=history-agent-group]')].map((g) => ({
          agent: g.querySelector('h3')?.textContent,
          sessions: [...g.querySelectorAll('[data-testid=history-row]')].map((r) => r.getAttribute('data-session-id')),
        })),
      })),
    );
    expect(groups).toEqual([
      {
        cwd: '/work/api',
        agents: [
          { agent: expect.stringContaining('Claude Code'), sessions: ['api-1'] },
          { agent: expect.stringContaining('Gemini CLI'), sessions: ['api-2'] },
        ],
      },
      { cwd: '/work/web', agents: [{ agent: expect.stringContaining('Claude Code'), sessions: ['web-1', 'web-2'] }] },
      { cwd: '/work/docs', agents: [{ agent: expect.stringContaining('Gemini CLI'), sessions: ['docs'] }] },
      { cwd: suite.work, agents: [{ agent: expect.stringContaining('Scenario'), sessions: ['old'] }] },
    ]);
    const api1 = tab.locator('[data-testid=history-row][data-session-id=api-1]');
    await expect(api1.textContent()).resolves.toMatch(/2 tool calls.*1 file touched/);
    await expect(api1.textContent()).resolves.toContain('hours ago');
    const api2 = tab.locator('[data-testid=history-row][data-session-id=api-2]');
    await expect(api2.textContent()).resolves.toContain('1 failed turn');
    await expect(api2.getByTestId('history-status').textContent()).resolves.toBe('Last turn failed');

    // Filtering the list by agent.
    await tab.getByTestId('history-tab-agent').selectOption({ label: 'Gemini CLI' });
    await tab.locator('[data-testid=history-row][data-session-id=api-1]').waitFor({ state: 'detached' });
    expect(await tab.getByTestId('history-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session-id')))).toEqual(['api-2', 'docs']);
    expect(errors).toEqual([]);
  });

  it('a stored message with HTML in it is shown as text, in the list, the search and the transcript', async () => {
    const { page, errors } = await open();
    const row = page.getByTestId('sidebar-history').locator('[data-testid=history-row][data-session-id=web-1]');
    await expect(row.textContent()).resolves.toContain('<img src=x onerror=window.__pwned=1>');

    await search(page, 'onerror');
    const hit = page.locator('[data-testid=history-hit][data-session-id=web-1]').first();
    await hit.waitFor();
    await expect(hit.textContent()).resolves.toContain('<img src=x onerror=');
    await expect(hit.locator('mark').first().textContent()).resolves.toBe('onerror');
    expect(await page.getByTestId('history-search').locator('img').count()).toBe(0);
    await page.keyboard.press('Escape');

    await row.getByTestId('history-open').click();
    const transcript = visible(page, 'transcript');
    await transcript.getByTestId('user-message').waitFor();
    await expect(transcript.getByTestId('user-message').textContent()).resolves.toContain('<img src=x onerror=window.__pwned=1> please render this');
    await expect(transcript.getByTestId('agent-message').textContent()).resolves.toContain('<img src=x onerror=window.__pwned=2>');
    expect(await transcript.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('exports a session as Markdown and as JSON (downloaded files)', async () => {
    const { page } = await open();
    await page.getByTestId('history-open-tab').click();
    const row = visible(page, 'history-tab').locator('[data-testid=history-row][data-session-id=api-1]');
    await row.hover();

    const [md] = await Promise.all([page.waitForEvent('download'), row.getByTestId('history-export-md').click()]);
    expect(md.suggestedFilename()).toMatch(/\.md$/);
    const markdown = await downloaded(md);
    expect(markdown).toContain('Fix the authentication refresh bug in login.ts');
    expect(markdown).toContain('I rotated the refresh token in src/auth/login.ts');
    expect(markdown).toContain('Run flakysnapshot suite');

    const [json] = await Promise.all([page.waitForEvent('download'), row.getByTestId('history-export-json').click()]);
    expect(json.suggestedFilename()).toMatch(/\.json$/);
    const doc = JSON.parse(await downloaded(json)) as { format: string; session: { id: string; cwd: string }; entries: Array<{ kind: string; text: string }> };
    expect(doc.format).toBe('switchboard.session');
    expect(doc.session).toMatchObject({ id: 'api-1', cwd: '/work/api' });
    expect(doc.entries.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual([
      'Fix the authentication refresh bug in login.ts, it breaks the quasar login',
      'Now run the tests',
    ]);
  });
});

describe('history search', () => {
  it('finds a prompt, an agent message, a tool call title and a file path by prefix, with the match highlighted', async () => {
    const { page, errors } = await open();
    await openSearch(page);

    const cases: Array<[string, string, string, string]> = [
      // query, session, kind, highlighted text
      ['authent', 'api-1', 'prompt', 'authentication'],
      ['rotat', 'api-1', 'agent', 'rotated'],
      ['flakysn', 'api-1', 'tool', 'flakysnapshot'],
      ['socket.ts', 'web-2', '', 'socket.ts'],
    ];
    for (const [query, session, kind, marked] of cases) {
      await search(page, query);
      const hit = page.locator(`[data-testid=history-hit][data-session-id=${session}]${kind ? `[data-kind=${kind}]` : ''}`).first();
      await hit.waitFor();
      const marks = await hit.locator('mark').allTextContents();
      expect(marks.map((m) => m.toLowerCase())).toContain(marked);
      // The result says which session, agent and project.
      await expect(hit.textContent()).resolves.toContain(session === 'web-2' ? 'web' : 'api');
      await expect(hit.textContent()).resolves.toContain('Claude Code');
    }
    await search(page, 'xyzzynothing');
    await page.getByTestId('history-search-empty').waitFor();
    expect(errors).toEqual([]);
  });

  it('filters by agent, project, date and failed turns', async () => {
    const { page } = await open();
    await openSearch(page);
    const hits = await search(page, 'quasar');
    const sessionsOf = async () => [...new Set((await hitTexts(hits)).map((h) => h.session))].sort();
    await page.locator('[data-testid=history-hit][data-session-id=web-2]').first().waitFor();
    expect(await sessionsOf()).toEqual(['api-1', 'api-2', 'web-2']);

    const dialog = page.getByTestId('history-search');
    await dialog.getByTestId('history-filter-agent').selectOption({ label: 'Gemini CLI' });
    await page.locator('[data-testid=history-hit][data-session-id=api-1]').first().waitFor({ state: 'detached' });
    expect(await sessionsOf()).toEqual(['api-2']);

    await dialog.getByTestId('history-filter-agent').selectOption({ label: 'All agents' });
    await dialog.getByTestId('history-filter-project').selectOption('/work/web');
    await page.locator('[data-testid=history-hit][data-session-id=api-2]').first().waitFor({ state: 'detached' });
    expect(await sessionsOf()).toEqual(['web-2']);

    await dialog.getByTestId('history-filter-project').selectOption('');
    await dialog.getByTestId('history-filter-date').selectOption('week');
    await page.locator('[data-testid=history-hit][data-session-id=api-1]').first().waitFor();
    await page.locator('[data-testid=history-hit][data-session-id=web-2]').first().waitFor({ state: 'detached' });
    expect(await sessionsOf()).toEqual(['api-1', 'api-2']);

    await dialog.getByTestId('history-filter-failed').check();
    await page.locator('[data-testid=history-hit][data-session-id=api-1]').first().waitFor({ state: 'detached' });
    const failed = await hitTexts(hits);
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((h) => h.session))).toEqual(new Set(['api-2']));
    await expect(hits.first().textContent()).resolves.toContain('failed turn');
  });

  it('↑/↓ choose a result, Enter opens the session scrolled to that message, highlighted; Esc closes', async () => {
    const { page } = await open();
    await openSearch(page);
    await page.keyboard.press('Escape');
    await page.getByTestId('history-search').waitFor({ state: 'detached' });

    await openSearch(page);
    const hits = await search(page, 'quasar');
    await page.locator('[data-testid=history-hit][data-session-id=web-2]').first().waitFor();
    expect(await hits.first().getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await hits.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowUp');
    expect(await hits.nth(0).getAttribute('aria-selected')).toBe('true');

    // Deep inside a long session: the transcript opens at that message (pages around it loaded).
    await search(page, 'zanzib');
    const hit = page.locator('[data-testid=history-hit][data-session-id=docs]').first();
    await hit.waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('history-search').waitFor({ state: 'detached' });
    const transcript = visible(page, 'transcript');
    const target = transcript.locator('[data-testid=transcript-entry][data-target]');
    await target.waitFor();
    await expect(target.textContent()).resolves.toContain('The zanzibarquux example now compiles.');
    const [box, view] = await Promise.all([target.boundingBox(), transcript.boundingBox()]);
    expect(box!.y).toBeGreaterThanOrEqual(view!.y);
    expect(box!.y + box!.height).toBeLessThanOrEqual(view!.y + view!.height);
    // The highlight fades.
    await target.waitFor({ state: 'detached', timeout: 10_000 });

    // Only a window of the transcript is in the page; scrolling to the top loads the first entries.
    expect(Number(await visible(page, 'transcript-tab').getAttribute('data-total'))).toBe(800);
    expect(await transcript.getByTestId('transcript-entry').count()).toBeLessThan(100);
    await transcript.evaluate((el) => (el.scrollTop = 0));
    await transcript.getByTestId('user-message').filter({ hasText: 'Step 1: update section 1 of the guide' }).waitFor();
  });

  it('the shortcut opens the search from inside a terminal', async () => {
    const { page } = await open();
    await page.locator('.pane.focused .tab-new').click();
    await page.getByTestId('launch-shell').click();
    await page.locator('.tab-panel:not([hidden]) .xterm').click();
    await page.keyboard.type('echo "in=$((6*7))"\n');
    await page.locator('.tab-panel:not([hidden]) .xterm-rows', { hasText: 'in=42' }).waitFor();

    await page.keyboard.press('Control+Shift+F');
    await page.getByTestId('history-search-input').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('history-search-input');
    await page.keyboard.press('Escape');
    await page.getByTestId('history-search').waitFor({ state: 'detached' });
    // Focus goes back to the terminal, and Ctrl+K works there too.
    expect(await page.evaluate(() => document.activeElement?.closest('.xterm') !== null)).toBe(true);
    await page.keyboard.press('Control+k');
    await page.getByTestId('history-search-input').waitFor();
    await page.keyboard.press('Escape');
  });
});

describe('reopening', () => {
  it('the History tab and a transcript tab survive a page reload', async () => {
    const { page } = await open();
    await page.getByTestId('history-open-tab').click();
    await visible(page, 'history-tab').waitFor();
    await page.getByTestId('sidebar-history').locator('[data-testid=history-row][data-session-id=api-1] [data-testid=history-open]').click();
    await visible(page, 'transcript').getByTestId('user-message').first().waitFor();
    await page.locator('[role=tab]', { hasText: 'History' }).click();
    await visible(page, 'history-tab').waitFor();

    await layoutSaved(page, suite.app, [2]);
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    await visible(page, 'history-tab').getByTestId('history-project').first().waitFor();
    const titles = await page.locator('[role=tab] .tab-title').allTextContents();
    expect(titles).toHaveLength(2);
    expect(titles[0]).toBe('History');
    expect(titles[1]).toContain('Fix the authentication refresh bug');
    await page.locator('[role=tab]').nth(1).click();
    await visible(page, 'transcript').getByTestId('agent-message').first().waitFor();
  });

  it('continues a past session in a new session with the same agent and folder, primed with a summary', async () => {
    const { page, errors } = await open();
    await page.getByTestId('sidebar-history').locator('[data-testid=history-row][data-session-id=old] [data-testid=history-open]').click();
    const tab = visible(page, 'transcript-tab');
    await tab.getByTestId('agent-message').waitFor();
    await tab.getByTestId('transcript-continue-new').click();
    const summary = tab.getByTestId('continue-summary');
    await summary.waitFor();
    const text = await summary.inputValue();
    expect(text).toContain('Write the release notes for version 2');
    expect(text).toContain('Wrote the release notes for version 2 in NOTES.md.');
    expect(text).toContain(suite.work);
    await summary.fill(`${text}\n\nAlso add a changelog link.`);
    await tab.getByTestId('continue-start').click();

    // The new session tab (the scripted agent echoes the prompt it got).
    const session = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await session.waitFor({ timeout: 30_000 });
    const reply = session.getByTestId('agent-message').filter({ hasText: 'Also add a changelog link.' });
    await reply.waitFor({ timeout: 30_000 });
    await expect(reply.textContent()).resolves.toContain('Write the release notes for version 2');
    expect(errors).toEqual([]);
  });
});
