/** Where JSON text's strings are, found by their quotes: inside a string every quote is escaped. */

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
