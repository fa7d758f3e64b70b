import stringWidth from 'string-width';
import { cutEnd, cutStart } from './format-ls.js';

/** A piece of a line, and whether it is marked (a match, shown highlighted). */
export interface MarkedPiece {
  text: string;
  marked: boolean;
}

/** Cells of text kept before a match that a line is cut at the start to show. */
const CONTEXT_BEFORE = 12;

/**
 * Pieces of a line in at most `width` terminal cells, each marked piece between `open` and
 * `close`: cut as `ls` cuts its rows (with `…`, at whole characters, wide ones counting two), and
 * when the first mark would fall past the width, cut at the start too, so that it shows.
 */
export function fitMarked(pieces: readonly MarkedPiece[], width: number, open: string, close: string): string {
  const shown = (piece: MarkedPiece) => (piece.marked ? `${open}${piece.text}${close}` : piece.text);
  let kept = [...pieces];
  const firstMark = kept.findIndex((piece) => piece.marked);
  const before = kept.slice(0, Math.max(0, firstMark)).reduce((cells, piece) => cells + stringWidth(piece.text), 0);
  if (firstMark > 0 && before + stringWidth(kept[firstMark]!.text) > width) {
    const lead = kept
      .slice(0, firstMark)
      .map((piece) => piece.text)
      .join('');
    kept = [{ text: cutStart(lead, Math.min(CONTEXT_BEFORE, width - 1)), marked: false }, ...kept.slice(firstMark)];
  }
  let room = width;
  let line = '';
  for (const piece of kept) {
    const cells = stringWidth(piece.text);
    const rest = kept.slice(kept.indexOf(piece) + 1).reduce((sum, next) => sum + stringWidth(next.text), 0);
    if (cells + rest <= room) return line + kept.slice(kept.indexOf(piece)).map(shown).join('');
    if (cells < room) {
      line += shown(piece);
      room -= cells;
      continue;
    }
    // What follows is cut away: the `…` says so, even where this piece alone would fill the room.
    return line + shown({ text: cutEnd(`${piece.text}…`, room), marked: piece.marked });
  }
  return line;
}
