/** A character as a message shows it: visible, whatever it is (`'{'`, `'\\n'`, `U+200B`). */
export function shownCharacter(char: string | undefined): string {
  if (char === undefined) return 'the end';
  if (char === '\n') return "'\\n'";
  if (char === '\r') return "'\\r'";
  if (char === '\t') return "'\\t'";
  // Control, format and space characters other than a space are invisible on a terminal.
  if (/^[\p{C}\p{Z}]$/u.test(char) && char !== ' ')
    return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${char}'`;
}

/** Where in the text a V8 syntax error names: what follows in its message. */
const V8_SYNTAX: [RegExp, string][] = [
  [/^Bad control character in string literal/, 'in string literal'],
  [/^Bad escaped character/, 'in string escape code'],
  [/^Expected ',' or '}' after property value/, 'after object key:value pair'],
  [/^Expected ',' or ']' after array element/, 'after array element'],
  [/^Expected property name or '}'/, 'looking for beginning of object key string'],
  [/^Expected ':' after property name/, 'after object key'],
  [/^Unexpected non-whitespace character after JSON/, 'after top-level value'],
];

/**
 * JSON.parse's syntax error said in the words of Go's encoding/json, which Reasonix's loader speaks
 * (`invalid character '{' after object key:value pair`), so every message about a line has one
 * wording whichever parser found the fault; and where in `span` it is, when the error says.
 */
export function goSyntaxError(span: string, error: Error): { words: string; at: number | undefined } {
  const message = error.message;
  if (/^Unexpected end of JSON input|^Unterminated string/.test(message))
    return { words: 'unexpected end of JSON input', at: span.length };
  const position = /at position (\d+)/.exec(message);
  const at = position ? Number(position[1]) : undefined;
  // V8 names the place past the last character where the text ended too soon.
  if (at !== undefined && at >= span.length) return { words: 'unexpected end of JSON input', at };
  const where = V8_SYNTAX.find(([pattern]) => pattern.test(message))?.[1];
  if (where && at !== undefined) return { words: `invalid character ${shownCharacter(span[at])} ${where}`, at };
  // `Unexpected token 'x', "…" is not valid JSON` names the character but not where; its quote of the text is not repeated.
  const token = /^Unexpected token '(.)'/su.exec(message);
  if (token)
    return {
      words: `invalid character ${shownCharacter(token[1])} looking for beginning of value`,
      at: span.indexOf(token[1]!),
    };
  return { words: message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, ''), at };
}
