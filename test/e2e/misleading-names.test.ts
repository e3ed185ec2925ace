import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Names that display misleadingly (issue 25): `invoice\u202Efdp.exe` showed as "invoiceexe.pdf"; newlines,
 * carriage returns and zero-width characters were invisible. Random names made of letters and those
 * characters (bidi controls, C0 controls, zero-width, combining marks) are created by a turn and given as a
 * session's title: each shows every hidden character as a token, and its letters in their order, on screen.
 */

const suite = appSuite('names');

const BIDI = ['\u202e', '\u202d', '\u202a', '\u202b', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const CONTROLS = ['\n', '\r', '\t', '\x01', '\x1b', '\x7f', '\x85'];
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u2028'];
const COMBINING = ['\u0301', '\u0308', '\u0327'];
const HIDDEN = new Set([...BIDI, ...CONTROLS, ...INVISIBLE]);

function randomNames(seed: number, count: number): string[] {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const names = new Set<string>(['invoice\u202efdp.exe', 'a\nb.txt', 'zero\u200bwidth.md']);
  while (names.size < count) {
    let name = pick(['r', 'n', 'q']);
    const len = 4 + Math.floor(rand() * 6);
    for (let i = 0; i < len; i++) {
      const r = rand();
      name += r < 0.45 ? pick([...'abcdefxyz019-_.']) : r < 0.6 ? pick(BIDI) : r < 0.75 ? pick(CONTROLS) : r < 0.9 ? pick(INVISIBLE) : pick(COMBINING);
    }
    names.add(`${name}.txt`);
  }
  return [...names];
}

/**
 * What a name shows, checked in the page: no hidden character is left in the text, each was replaced by a
 * token, the other characters keep their order, and on screen the letters run left to right.
 */
async function shown(el: Locator): Promise<{ text: string; leftToRight: boolean }> {
  return el.evaluate((node) => {
    const text = node.textContent ?? '';
    const xs: Array<{ x: number; y: number }> = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const data = t.textContent ?? '';
      for (let i = 0; i < data.length; i++) {
        if (!/[a-z0-9]/i.test(data[i]!)) continue;
        const range = document.createRange();
        range.setStart(t, i);
        range.setEnd(t, i + 1);
        const r = range.getBoundingClientRect();
        xs.push({ x: r.left, y: Math.round(r.top) });
      }
    }
    const leftToRight = xs.every((p, i) => i === 0 || p.y > xs[i - 1]!.y || p.x > xs[i - 1]!.x);
    return { text, leftToRight };
  });
}

function expectFaithful(name: string, got: { text: string; leftToRight: boolean }): void {
  for (const ch of got.text) expect(HIDDEN.has(ch), `${JSON.stringify(name)} shows a hidden ${JSON.stringify(ch)}`).toBe(false);
  const tokens = got.text.match(/<U\+[0-9A-F]{4}>|[\u2400-\u2421]/g) ?? [];
  expect(tokens.length, JSON.stringify(name)).toBe([...name].filter((c) => HIDDEN.has(c)).length);
  const plain = (s: string) => [...s].filter((c) => /[a-z0-9._-]/i.test(c)).join('');
  expect(plain(got.text.replace(/<U\+[0-9A-F]{4}>/g, '')), JSON.stringify(name)).toBe(plain(name));
  expect(got.leftToRight, JSON.stringify(name)).toBe(true);
}

describe('agent-controlled names', () => {
  it('file names of a turn and a session title show their hidden characters as tokens, in order', async () => {
    const names = randomNames(0x25, 14);
    const folder = join(suite.work, 'names-project');
    mkdirSync(folder);
    writeFileSync(join(folder, 'names.json'), JSON.stringify(names));
    writeFileSync(join(folder, 'make.cjs'), "const fs = require('fs'); for (const n of JSON.parse(fs.readFileSync('names.json', 'utf8'))) fs.writeFileSync('out-' + n, 'x\\n');\n");
    writeFileSync(join(folder, 'make.sh'), 'node make.cjs\n');
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Names Agent');
    const tab = await startSessionFromSidebar(page, row, folder);
    // A title from the agent: in the tab strip, the same.
    const sessionTab = page.locator('[role=tab][aria-selected=true]');
    for (const title of [names[0]!, names[3]!, `Fix\u202e gnp.exe\r\nreal title\u200b`]) {
      await sendPrompt(tab, `title ${JSON.stringify(title)}`);
      const letters = (t: string) => t.replace(/<U\+[0-9A-F]{4}>|[\u2400-\u2421]/g, '').replace(/[^a-z0-9]/gi, '');
      await expect.poll(async () => letters((await shown(sessionTab.locator('.tab-title'))).text), { timeout: WAIT.agent }).toBe(letters(title));
      expectFaithful(title, await shown(sessionTab.locator('.tab-title')));
    }

    await sendPrompt(tab, 'sh-run make.sh');
    await tab.getByTestId('agent-message').filter({ hasText: 'done' }).waitFor();
    await tab.getByTestId('turn-changes-open').filter({ hasText: `${names.length} added` }).click();

    const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
    const files = review.getByTestId('change-file');
    await expect.poll(() => files.count(), { timeout: WAIT.server }).toBe(names.length);
    const byPath = new Map<string, Locator>();
    for (let i = 0; i < names.length; i++) byPath.set((await files.nth(i).getAttribute('data-path'))!, files.nth(i).locator('.change-file-path'));
    for (const name of names) {
      const el = byPath.get(`out-${name}`);
      expect(el, JSON.stringify(name)).toBeDefined();
      expectFaithful(`out-${name}`, await shown(el!));
    }
    // The example of the issue, exactly.
    expect((await shown(byPath.get('out-invoice\u202efdp.exe')!)).text).toBe('out-invoice<U+202E>fdp.exe');
    expect((await shown(byPath.get('out-a\nb.txt')!)).text).toBe('out-a␊b.txt');

    expect(errors).toEqual([]);
  });
});
