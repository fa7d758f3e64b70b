/** Where JSON text's strings are, found by their quotes (inside a string every quote is escaped), and its white space. */

/** Whether the quote at `at` is escaped: after an odd number of backslashes. */
export function isEscaped(text: string, at: number): boolean {
  let before = at - 1;
  while (text.charCodeAt(before) === 0x5c) before -= 1;
  return (at - before) % 2 === 0;
}

/** The index after the closing quote of the string opening at `quote` (the text's length when none closes it). */
export function stringEnd(text: string, quote: number): number {
  for (let close = text.indexOf('"', quote + 1); close !== -1; close = text.indexOf('"', close + 1))
    if (!isEscaped(text, close)) return close + 1;
  return text.length;
}

/** Whether a character code is JSON's white space: a space, a tab, a line feed or a carriage return, nothing else. */
export function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
