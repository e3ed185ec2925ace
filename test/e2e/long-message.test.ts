import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * A long agent message (issue 16: a day-long thread can hold one). Its blocks far from the view stay plain
 * text, in groups, until they come near it; the user still sees formatted markdown wherever they look.
 */

const suite = appSuite('long-message');

describe('a long agent message', () => {
  it('formats what comes into view, top and bottom, and keeps its far blocks as a few plain groups', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Long message agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    // 300 paragraphs: more than enough for the far ones to be grouped.
    const paragraphs = Array.from({ length: 300 }, (_, i) => `Paragraph ${i} says **bold-${i}** and \`code-${i}\`.`);
    await sendPrompt(tab, `say ${paragraphs.join('\n\n')}`);
    const message = tab.getByTestId('agent-message').last();
    // The end is formatted at once.
    await message.locator('strong', { hasText: 'bold-299' }).waitFor();
    await message.locator('code', { hasText: 'code-298' }).waitFor();
    // Far from the view: plain text, the early paragraphs in groups (one element for many), not one element each.
    const plain = message.getByTestId('md-plain');
    expect(await plain.count()).toBeLessThan(100);
    expect(await message.locator('strong', { hasText: /^bold-0$/ }).count()).toBe(0);
    expect(await message.textContent()).toContain('Paragraph 0 says **bold-0**');

    // Scrolled to its top (above it: the prompt, as long), the first paragraphs are formatted too.
    await expect
      .poll(
        async () => {
          await message.evaluate((el) => el.scrollIntoView({ block: 'start' }));
          return message.locator('strong', { hasText: /^bold-0$/ }).count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(await message.locator('code', { hasText: /^code-1$/ }).count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
