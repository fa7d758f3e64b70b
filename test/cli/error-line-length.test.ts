// An error line keeps the paths of a deep session folder whole, and its advice after them; only a word no
// path is that long (a mistyped id of thousands of characters) is cut, to its start with its length.
import { describe, expect, it } from 'vitest';
import { cutLongWords } from '../../src/cli/error-line.js';

describe('an error line', () => {
  it('keeps two paths of 200 characters and more whole, and the advice after them', () => {
    const deep = `/home/someone/.config/reasonix/projects/-home-someone-${'work-'.repeat(20)}app/sessions-v4/0123456789abcdef0123456789abcdef`;
    expect(deep.length).toBeGreaterThan(200);
    const line = `rxstore: RX_EXPORT_REFUSED: ${deep}: not exported: Reasonix would refuse this session (RX_CRC_MISMATCH: ${deep}/events.frames: decode v4 frame: CRC check failed); rxstore salvage writes what can still be read into a new session`;
    expect(cutLongWords(line)).toBe(line);
  });

  it('cuts a word of 5,000 characters to its start, with its length, and the line stays short', () => {
    const line = `rxstore: RX_SESSION_NOT_FOUND: no session matches "${'a'.repeat(5000)}"`;
    const cut = cutLongWords(line);
    expect(cut).toContain(`"${'a'.repeat(60)}… (5,000 characters)"`);
    expect(cut.length).toBeLessThan(200);
  });

  it('is never longer than 2,500 characters, however many long paths it holds', () => {
    const line = Array.from({ length: 40 }, (_, at) => `/${String(at).padStart(3, '0')}${'p'.repeat(150)}`).join(' ');
    expect(cutLongWords(line).length).toBeLessThanOrEqual(2500);
  });
});
