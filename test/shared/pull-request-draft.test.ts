import { describe, expect, it } from 'vitest';
import { DRAFT_BODY_MAX, DRAFT_TITLE_MAX, parsePullRequestDraft } from '../../src/shared/pull-request-draft';

describe('reading a pull request draft from an agent’s reply', () => {
  it('takes the first line as the title and the rest as the description', () => {
    expect(parsePullRequestDraft('Add login\n\nIt adds a login form.\n\n- tested')).toEqual({ title: 'Add login', body: 'It adds a login form.\n\n- tested' });
    expect(parsePullRequestDraft('Add login')).toEqual({ title: 'Add login', body: '' });
    expect(parsePullRequestDraft('Add login\r\n\r\nBody\r\nmore')).toEqual({ title: 'Add login', body: 'Body\nmore' });
  });

  it('drops the wrappings agents put around a draft', () => {
    const want = { title: 'Add login', body: 'It adds a form.' };
    for (const reply of [
      'Title: Add login\nBody: It adds a form.',
      '**Title:** Add login\n\n**Description:**\nIt adds a form.',
      '## Add login\n\nIt adds a form.',
      '"Add login"\n\nIt adds a form.',
      '`Add login`\n\nIt adds a form.',
      'Sure! Here is a draft:\n\nTitle: Add login\n\nIt adds a form.',
      'Here is a draft for the pull request:\n```\nAdd login\n\nIt adds a form.\n```',
      '~~~md\nPR title: Add login\n\nSummary: It adds a form.\n~~~',
    ]) {
      expect(parsePullRequestDraft(reply), reply).toEqual(want);
    }
  });

  it('keeps a title that merely looks like chatter when it is all there is', () => {
    expect(parsePullRequestDraft('Fix: handle the empty list')?.title).toBe('Fix: handle the empty list');
  });

  it('bounds and cleans what it returns', () => {
    const long = parsePullRequestDraft(`${'word '.repeat(200)}\n\n${'x'.repeat(DRAFT_BODY_MAX + 10)}`)!;
    expect([...long.title].length).toBe(DRAFT_TITLE_MAX);
    expect(long.title.endsWith('…')).toBe(true);
    expect(long.body.length).toBeLessThanOrEqual(DRAFT_BODY_MAX + 3);
    expect(parsePullRequestDraft('\u001b[1mBold\u001b[0m\u200f \u2066title\u2069\tnow\n\nbody\u0008\u0007')).toEqual({ title: 'Bold title now', body: 'body' });
    expect(parsePullRequestDraft('')).toBeNull();
    expect(parsePullRequestDraft('\u001b[2J\u0007\n\n')).toBeNull();
  });
});
