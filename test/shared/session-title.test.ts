import { describe, expect, it } from 'vitest';
import { agentLabel, promptSummary, PROMPT_TITLE_CHARS, sessionTitle, storedTitle } from '../../src/shared/session-title';

describe('the session title rule (shared/session-title)', () => {
  it('a multi-line prompt names the session by its first non-empty line, on one line', () => {
    expect(promptSummary('\n\n   Fix the login\tbug  \nin auth.ts, then run the tests\n')).toBe('Fix the login bug');
    expect(promptSummary('  \n \t\n')).toBeNull();
  });

  it('a very long prompt is cut at a word boundary, marked with an ellipsis', () => {
    const long = 'Refactor the payment module so that every provider goes through one interface, and add tests for each provider';
    const t = promptSummary(long)!;
    expect([...t].length).toBeLessThanOrEqual(PROMPT_TITLE_CHARS);
    expect(t.endsWith('…')).toBe(true);
    expect(long.startsWith(t.slice(0, -1))).toBe(true);
    expect(long[t.length - 1]).toBe(' ');
    // One word longer than the limit is cut inside it.
    expect([...promptSummary('x'.repeat(500))!].length).toBe(PROMPT_TITLE_CHARS);
    // Characters, not UTF-16 units: an emoji is never split.
    expect(promptSummary('🙂'.repeat(100))).toBe(`${'🙂'.repeat(PROMPT_TITLE_CHARS - 1)}…`);
  });

  it('the user’s name beats the agent’s title, which beats the prompt; none: "<Agent> session"', () => {
    const prompt = 'Add a dark theme\nwith these colours: …';
    expect(sessionTitle(storedTitle({ prompt }), 'Claude Agent')).toBe('Add a dark theme');
    // The agent's title arrives later and replaces the prompt's summary.
    expect(sessionTitle(storedTitle({ agent: 'Dark theme  for the app', prompt }), 'Claude Agent')).toBe('Dark theme for the app');
    // A line break the agent sent stays, for the page to show as a token (never a hidden second line).
    expect(sessionTitle(storedTitle({ agent: 'Fix\r\nreal title', prompt }), 'Claude Agent')).toBe('Fix\r\nreal title');
    expect(sessionTitle(storedTitle({ custom: 'Theme work', agent: 'Dark theme', prompt }), 'Claude Agent')).toBe('Theme work');
    expect(sessionTitle(storedTitle({ custom: '  ', agent: '', prompt: '\n' }), 'Gemini CLI')).toBe('Gemini CLI session');
    expect(sessionTitle(null, agentLabel('custom-3b111e2e-aaaa-bbbb', null))).toBe('Removed custom agent session');
    expect(agentLabel('custom-3b111e2e-aaaa-bbbb', 'My agent')).toBe('My agent');
    // A fork with nothing of its own yet is named after its parent, until its first prompt.
    expect(sessionTitle(null, 'Codex', 'Add a dark theme')).toBe('Fork of Add a dark theme');
    expect(sessionTitle(null, 'Codex', '')).toBe('Fork of Codex session');
    expect(sessionTitle(storedTitle({ prompt: 'remember' }), 'Codex', 'Add a dark theme')).toBe('remember');
  });
});
