import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/shared/format-bytes';

describe('formatBytes', () => {
  it('says bytes below a KB, and one decimal below 100 of a unit, none when whole', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatBytes(99.94 * 1024 * 1024)).toBe('99.9 MB');
    expect(formatBytes(150.4 * 1024 * 1024)).toBe('150 MB');
    expect(formatBytes(3.25 * 1024 ** 3)).toBe('3.3 GB');
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TB');
    expect(formatBytes(1024 * 1024 + 1)).toBe('1 MB');
  });
});
