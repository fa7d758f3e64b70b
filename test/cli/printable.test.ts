// The one escape every command's text and every page uses: nothing from a session can move a
// terminal's cursor, write its clipboard or reorder what a reader sees.
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/index.js';

describe('printable', () => {
  it('escapes C0, DEL and C1 controls, and line and paragraph separators', () => {
    expect(printable('a\nb\r\tc\x1b[2J\x7f\x9b\u2028\u2029')).toBe('a\\nb\\r\\tc\\x1b[2J\\x7f\\x9b\\u2028\\u2029');
  });

  it('escapes every bidirectional control: marks, embeddings, overrides and isolates', () => {
    const bidi = [
      '\u061c',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ];
    for (const character of bidi)
      expect(printable(`evil${character}txt.exe`), character.codePointAt(0)!.toString(16)).toBe(
        `evil\\u${character.codePointAt(0)!.toString(16).padStart(4, '0')}txt.exe`,
      );
  });

  it('escapes invisible format characters that hide text, and keeps the joiners emoji and scripts need', () => {
    expect(printable('a\u200bb\u2060c\u2064d\ufeffe\ufff9f\ufffbg')).toBe(
      'a\\u200bb\\u2060c\\u2064d\\ufeffe\\ufff9f\\ufffbg',
    );
    expect(printable('👨\u200d👩\u200d👧 \u0928\u094d\u200c')).toBe('👨\u200d👩\u200d👧 \u0928\u094d\u200c');
    expect(printable('plain text, ünïcode, 漢字')).toBe('plain text, ünïcode, 漢字');
  });

  it('keeps line feeds and tabs when asked, a CRLF as a line break, a lone CR and the rest escaped', () => {
    expect(printable('one\r\ntwo\tthree\rfour\u202e\x1b', { keepLines: true })).toBe(
      'one\ntwo\tthree\\rfour\\u202e\\x1b',
    );
  });
});
