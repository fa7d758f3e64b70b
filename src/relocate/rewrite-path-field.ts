import { goJson } from '../codec/go-json/go-json.js';
import type { Platform } from '../store/roots/platform.js';
import { sameFolder } from './workspace-folder.js';

/**
 * `text` (a JSON object file) with the string value of top-level-looking `"<field>": "<path>"`
 * replaced by `to` where it names the folder `from`, and every other byte kept as it was: the
 * file stays as Reasonix wrote it (its indentation, key order, escapes) but for the one value.
 * Undefined when no such value names `from` (nothing to write). The value is written as Go
 * writes strings, `<`, `>` and `&` escaped.
 */
export function rewritePathField(
  text: string,
  field: string,
  from: string,
  to: string,
  platform: Platform,
): string | undefined {
  const pattern = new RegExp(`("${field}"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*")`, 'g');
  let changed = false;
  const rewritten = text.replace(pattern, (whole, key: string, value: string) => {
    const path = parseString(value);
    if (path === undefined || !sameFolder(path, from, platform)) return whole;
    changed = true;
    return `${key}${goJson(to)}`;
  });
  return changed ? rewritten : undefined;
}

function parseString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
