/**
 * `JSON.stringify` for values of any depth. V8's stringify recurses and overflows the stack near
 * 4,000 levels, while Reasonix reads JSON nested up to 10,000; such a value is written here with
 * a stack of its own, to the same text. Plain data only, as JSON.parse gives it (and `toJSON`).
 */
export function jsonText(value: unknown, indent = 0): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyWithOwnStack(value, indent);
  }
}

/** A container being written: its entries left, and whether one was written already. */
interface Open {
  close: string;
  entries: [key: string | undefined, value: unknown][];
  next: number;
  wrote: boolean;
}

/** What `jsonText` writes when `JSON.stringify` overflows: the same text, with a stack of its own. */
export function stringifyWithOwnStack(root: unknown, indent = 0): string {
  const parts: string[] = [];
  const stack: Open[] = [];
  const newline = (depth: number) => (indent > 0 ? `\n${' '.repeat(indent * depth)}` : '');
  const write = (key: string | undefined, raw: unknown, inArray: boolean): void => {
    const value =
      typeof (raw as { toJSON?: unknown } | null)?.toJSON === 'function'
        ? (raw as { toJSON: () => unknown }).toJSON()
        : raw;
    const skipped = value === undefined || typeof value === 'function' || typeof value === 'symbol';
    if (skipped && !inArray) return;
    const open = stack.at(-1);
    if (open) {
      if (open.wrote) parts.push(',');
      open.wrote = true;
      parts.push(newline(stack.length));
      if (key !== undefined) parts.push(`${JSON.stringify(key)}:${indent > 0 ? ' ' : ''}`);
    }
    if (skipped) parts.push('null');
    else if (Array.isArray(value)) {
      parts.push('[');
      stack.push({ close: ']', entries: value.map((item) => [undefined, item]), next: 0, wrote: false });
    } else if (value !== null && typeof value === 'object') {
      parts.push('{');
      stack.push({ close: '}', entries: Object.entries(value), next: 0, wrote: false });
    } else parts.push(JSON.stringify(value));
  };
  // Stryker disable next-line BooleanLiteral: only an overflow of JSON.stringify brings a value here, so the root is a deep container, never a value …
  write(undefined, root, true);
  while (stack.length > 0) {
    const open = stack.at(-1)!;
    if (open.next < open.entries.length) {
      const [key, value] = open.entries[open.next]!;
      open.next += 1;
      write(key, value, key === undefined);
      continue;
    }
    stack.pop();
    parts.push(`${open.wrote ? newline(stack.length) : ''}${open.close}`);
  }
  return parts.join('');
}
