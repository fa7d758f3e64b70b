/** How much of a long text a page shows before it says how much more there is. */
export interface CutLimits {
  lines: number;
  chars: number;
}

export interface CutText {
  /** The start of the text, whole lines where they fit the limits. */
  shown: string;
  /** Lines of the text, counting a last line without a newline. */
  totalLines: number;
  /** Lines not shown (a line cut by the character limit counts as not shown). */
  moreLines: number;
  /** The text's size in UTF-8 bytes. */
  bytes: number;
}

/**
 * The start of `text` within the limits, and what was left out. Lines are found with indexOf so a
 * tool output of many megabytes is never split into an array of lines.
 */
export function cutText(text: string, limits: CutLimits): CutText {
  const totalLines = countLines(text);
  const bytes = Buffer.byteLength(text, 'utf8');
  let end = 0;
  let lines = 0;
  while (lines < limits.lines && end < text.length) {
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline + 1;
    if (next > limits.chars) {
      // One line longer than the whole budget is cut inside; anything after it is left out.
      if (lines === 0) end = safeEnd(text, limits.chars);
      break;
    }
    end = next;
    lines += 1;
  }
  const shownLines = end === 0 ? 0 : countLines(text.slice(0, end));
  const cutInsideLine = end > 0 && end < text.length && text[end - 1] !== '\n';
  return { shown: text.slice(0, end), totalLines, moreLines: totalLines - shownLines + (cutInsideLine ? 1 : 0), bytes };
}

function countLines(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return text.endsWith('\n') ? count : count + 1;
}

/** An index to cut at that does not split a surrogate pair. */
function safeEnd(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** A byte size as a person reads it: 812 B, 14.2 KB, 3.1 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
