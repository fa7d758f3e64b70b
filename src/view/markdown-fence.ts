import { printable } from '../index.js';
import { escapeHtml, wellFormed } from './escape-html.js';

/**
 * A fenced code block that its content cannot close: the fence is a run of backticks longer than
 * any run inside the text (CommonMark closes a fence only with a run at least as long as the
 * opening one), and the info string is a fixed word, never data.
 */
export function fencedBlock(text: string, info = 'text'): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${info}\n${shown(text)}${text.endsWith('\n') || text === '' ? '' : '\n'}${fence}\n`;
}

/**
 * Control characters other than line breaks and tabs (an ANSI colour, a bidirectional override)
 * written as escapes: Markdown is read in terminals too, where they would act instead of show.
 */
function shown(text: string): string {
  return printable(wellFormed(text), { keepLines: true });
}

/** An inline code span its content cannot close (CommonMark: backtick strings of equal length). */
export function inlineCode(text: string): string {
  const flat = shown(text).replace(/[\r\n]+/g, ' ');
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/**
 * Text from a session as literal Markdown text on one line: characters that start markup inline
 * (emphasis, links, images, raw HTML, entities) are backslash-escaped, as CommonMark allows for
 * every ASCII punctuation character.
 */
export function markdownText(text: string): string {
  return shown(text)
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!<>&|~:@]/g, '\\$&');
}

/**
 * Text from a session inside an HTML block of a Markdown page (a `<summary>`): escaped HTML on
 * one line. A line break would let a blank line end the block, and what follows it would be
 * read as Markdown: headings, images, links.
 */
export function htmlBlockText(text: string): string {
  return escapeHtml(text.replace(/\s*[\r\n]+\s*/g, ' '));
}

/** The longest run of backticks in a text (a loop: a spread of every run would overflow the stack). */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}
