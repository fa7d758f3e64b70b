/** One line of a diff between an edit's replaced span and its new span. */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Past this many lines on both sides (their product), the changed middle is shown as removed then added. */
const LCS_CELLS = 1_000_000;

/**
 * The lines of `before` and `after` as a diff: lines both share at the start and end are kept as
 * context, and the middle is aligned by a longest common subsequence when it is small enough.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const old = splitLines(before);
  const next = splitLines(after);
  let start = 0;
  while (start < old.length && start < next.length && old[start] === next[start]) start += 1;
  let end = 0;
  while (
    end < old.length - start &&
    end < next.length - start &&
    old[old.length - 1 - end] === next[next.length - 1 - end]
  )
    end += 1;
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  const middle = alignMiddle(old.slice(start, old.length - end), next.slice(start, next.length - end));
  return [...old.slice(0, start).map(same), ...middle, ...old.slice(old.length - end).map(same)];
}

function alignMiddle(old: string[], next: string[]): DiffLine[] {
  if (old.length * next.length > LCS_CELLS) {
    return [
      ...old.map((text) => ({ kind: 'removed' as const, text })),
      ...next.map((text) => ({ kind: 'added' as const, text })),
    ];
  }
  // lengths[i][j]: the longest common subsequence of old[i..] and next[j..].
  const lengths = Array.from({ length: old.length + 1 }, () => new Uint32Array(next.length + 1));
  for (let i = old.length - 1; i >= 0; i -= 1) {
    for (let j = next.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] =
        old[i] === next[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length || j < next.length) {
    if (i < old.length && j < next.length && old[i] === next[j]) {
      lines.push({ kind: 'same', text: old[i]! });
      i += 1;
      j += 1;
    } else if (j >= next.length || (i < old.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
      lines.push({ kind: 'removed', text: old[i]! });
      i += 1;
    } else {
      lines.push({ kind: 'added', text: next[j]! });
      j += 1;
    }
  }
  return lines;
}

/** Lines without their newlines; an empty text is no lines, a final newline does not add one. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
