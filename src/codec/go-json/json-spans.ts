import { parseGoJsonText } from './go-text.js';
import { isEscaped, isJsonSpace, stringEnd } from './json-strings.js';

/** Characters that end a number or a literal (`true`, `false`, `null`) in JSON text. */
const LITERAL = /[A-Za-z0-9+\-.]/;

/** Where the JSON value starting at `start` ends, or undefined when the text ends first. */
export function jsonValueEnd(text: string, start: number): number | undefined {
  const first = text[start]!;
  if (first === '"') return closedStringEnd(text, start);
  if (first !== '{' && first !== '[') {
    let end = start;
    while (end < text.length && LITERAL.test(text[end]!)) end += 1;
    return end;
  }
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      const end = closedStringEnd(text, index);
      if (end === undefined) return undefined;
      index = end - 1;
    } else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The index after the closing quote of the string opening at `quote`, or undefined when the text ends first. */
function closedStringEnd(text: string, quote: number): number | undefined {
  const end = stringEnd(text, quote);
  const close = end - 1;
  return close > quote && text[close] === '"' && !isEscaped(text, close) ? end : undefined;
}

/**
 * A JSON value's place in the text it was parsed from (text known to be valid JSON): its own text, and those of
 * an object's entries, each key as Go reads it, or of a list's elements, found when first asked for. Where Go
 * keeps a value's text as written (a `json.RawMessage`), this is how that text is found again.
 */
export class JsonSpan {
  private children: { key?: string; span: JsonSpan }[] | undefined;

  constructor(
    private readonly source: string,
    readonly start: number,
    readonly end: number,
  ) {}

  /** The value's text as written. */
  get text(): string {
    return this.source.slice(this.start, this.end);
  }

  /** An object's entries in the order written (a key written twice, each time), keys decoded; none for anything else. */
  entries(): readonly { key: string; span: JsonSpan }[] {
    return this.source[this.start] === '{' ? (this.childSpans() as { key: string; span: JsonSpan }[]) : [];
  }

  /** A list's elements in order; none for anything else. */
  items(): readonly JsonSpan[] {
    return this.source[this.start] === '[' ? this.childSpans().map((child) => child.span) : [];
  }

  private childSpans(): { key?: string; span: JsonSpan }[] {
    if (this.children !== undefined) return this.children;
    const text = this.source;
    const children: { key?: string; span: JsonSpan }[] = [];
    const object = text[this.start] === '{';
    let at = this.start + 1;
    const skipSpace = () => {
      while (at < this.end && isJsonSpace(text.charCodeAt(at))) at += 1;
    };
    for (;;) {
      skipSpace();
      if (at >= this.end - 1) break;
      let key: string | undefined;
      if (object) {
        const keyEnd = stringEnd(text, at);
        // As Go reads a key: its escapes decoded, a lone surrogate U+FFFD.
        key = parseGoJsonText(text.slice(at, keyEnd)) as string;
        at = keyEnd;
        skipSpace();
        at += 1; // the colon
        skipSpace();
      }
      const end = jsonValueEnd(text, at) ?? this.end;
      children.push({ ...(key === undefined ? {} : { key }), span: new JsonSpan(text, at, end) });
      at = end;
      skipSpace();
      at += 1; // a comma, or the closing bracket
    }
    this.children = children;
    return children;
  }
}

/** JSON text without the white space between its tokens, as Go's `json.Compact` leaves it (strings untouched). */
export function compactJson(text: string): string {
  let out = '';
  let from = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = stringEnd(text, at) - 1;
    else if (isJsonSpace(code)) {
      out += text.slice(from, at);
      from = at + 1;
    }
  }
  return out + text.slice(from);
}
