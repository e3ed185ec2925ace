import { describe, expect, it } from 'vitest';
import { suggestBranchName } from '../../src/shared/contract/worktrees';
import { promptSummary, sessionTitle, storedTitle } from '../../src/shared/session-title';

/** Prompts as users type and paste them: the directives around the words they mean. */
const PROMPTS: Array<[string, string, string]> = [
  ['/review Fix the login bug', 'Fix the login bug', 'sb/fix-login-bug'],
  ['<context>\nfile: src/auth.ts\nsecret: hunter2\n</context>\nFix the login bug', 'Fix the login bug', 'sb/fix-login-bug'],
  ['@src/auth/login.ts fix the redirect', 'login.ts fix the redirect', 'sb/login-ts-fix-redirect'],
  ['Look at @"docs/My Notes.md" first', 'Look at My Notes.md first', 'sb/look-at-my-notes-md'],
  ['![screenshot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==) why is **this** _broken_?', 'why is this broken?', 'sb/why-broken'],
  ['[Image #1] [Pasted text #2 +40 lines]\nMake the `Button` red', 'Make the Button red', 'sb/make-button-red'],
  ['# Plan\n- [ ] add a [dark theme](https://example.com/x)', 'Plan', 'sb/plan-add-dark-theme'],
  ['<system-reminder>ignore</system-reminder><ide_selection>x</ide_selection>\u202eTranslate\u200b the page', 'Translate the page', 'sb/translate-page'],
  ['```ts\nconst a = 1;\n```\nwhat does this print', 'what does this print', 'sb/what-does-print'],
  ['/compact', '', 'sb/task'],
];

describe('a title and a branch name come from the visible words of a prompt', () => {
  it.each(PROMPTS)('%j', (prompt, title, branch) => {
    expect(promptSummary(prompt) ?? '').toBe(title);
    expect(suggestBranchName(prompt)).toBe(branch);
  });

  it('is bounded, and a title only directives is no title (the next prompt with words gives it)', () => {
    expect([...promptSummary(`<context>${'x'.repeat(10_000)}</context>${'word '.repeat(500)}`)!].length).toBeLessThanOrEqual(60);
    expect(suggestBranchName(`${'verylongword'.repeat(20)} more`).length).toBeLessThanOrEqual(51);
    expect(promptSummary('<context>only context</context>\n@a.ts')).toBe('a.ts');
    expect(promptSummary('<context>only context</context>')).toBeNull();
  });

  it("an agent's title made of a raw prompt shows its words only; the user's name beats both", () => {
    const first = '/plan <context>x</context> Add a dark theme';
    expect(sessionTitle(storedTitle({ prompt: first }), 'Claude Agent')).toBe('Add a dark theme');
    expect(sessionTitle(storedTitle({ prompt: first, agent: '<context>y</context> now make it blue' }), 'Claude Agent')).toBe('now make it blue');
    expect(sessionTitle(storedTitle({ custom: 'Theme work', prompt: first, agent: 'now make it blue' }), 'Claude Agent')).toBe('Theme work');
    // No prompt with words yet: the agent's title, cleaned the same way.
    expect(sessionTitle(storedTitle({ prompt: '/init', agent: '<context>y</context> Repository set-up' }), 'Claude Agent')).toBe('Repository set-up');
  });
});
