import { describe, expect, it } from 'vitest';
import { splitBlocks } from '../../src/renderer/src/features/markdown/split-blocks';

describe('splitBlocks (streaming markdown renders block by block)', () => {
  it('splits at blank lines and drops empty blocks', () => {
    expect(splitBlocks('# Title\n\nFirst paragraph\nstill first\n\n\n- a\n- b\n')).toEqual(['# Title\n', 'First paragraph\nstill first\n', '- a\n- b\n']);
  });

  it('never splits inside fenced code, whatever the fence', () => {
    const text = 'before\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n~~~~\nx\n\n```\nstill code\n~~~~\nafter';
    expect(splitBlocks(text)).toEqual(['before\n', '```ts\nconst a = 1;\n\nconst b = 2;\n```\n', '~~~~\nx\n\n```\nstill code\n~~~~\nafter']);
  });

  it('keeps an unclosed fence (a message still streaming) in one last block', () => {
    expect(splitBlocks('intro\n\n```py\nprint(1)\n\nprint(2)')).toEqual(['intro\n', '```py\nprint(1)\n\nprint(2)']);
  });

  it('cuts a huge paragraph at whitespace into bounded pieces, keeping fenced code whole', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' ');
    const pieces = splitBlocks(words);
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(3000);
    expect(pieces.join('')).toBe(words);
    const code = '```\n' + 'x '.repeat(10_000) + '\n```';
    expect(splitBlocks(code)).toEqual([code]);
  });

  it('loses no text: joining the blocks gives back every non-blank line', () => {
    const text = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? '' : i % 13 === 0 ? '```' : `line ${i}`)).join('\n');
    const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');
    expect(lines(splitBlocks(text).join('\n'))).toEqual(lines(text));
  });
});
