import * as z from 'zod';
import type { IndexedTranscript } from './transcript-index.js';

/*
 * What a session is called, wherever rxstore names it (ls, where, inspect, view): one home, so that
 * every command calls a session the same.
 */

/** Longest title shown; longer text is cut with an ellipsis. */
const TITLE_CHARACTERS = 80;

/** A one-line title from free text (a first user message, a preview): whitespace collapsed, cut to 80 characters. */
function titleFromText(text: string | null | undefined): string | null {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  const characters = [...line];
  return characters.length > TITLE_CHARACTERS ? `${characters.slice(0, TITLE_CHARACTERS - 1).join('')}…` : line;
}

/** Whether a session was given its title or shows a preview of its first message. */
export const TitleSourceSchema = z.enum(['title', 'preview']);

/** A session's title, and where it comes from. */
export interface DisplayTitle {
  title: string | null;
  titleFrom: z.infer<typeof TitleSourceSchema> | null;
}

/** The title Reasonix shows: the session's own, else a preview (docs/format.md §11.3). */
export function displayTitle(own: string | null | undefined, preview: string | null | undefined): DisplayTitle {
  const title = titleFromText(own);
  if (title) return { title, titleFrom: 'title' };
  const shown = titleFromText(preview);
  return { title: shown, titleFrom: shown ? 'preview' : null };
}

/**
 * What the person first typed (`raw_content`, else its text), the preview an untitled session is
 * shown by; `text` null when that message is not plain text; null when the person typed nothing yet.
 * The transcript must keep its messages, or their previews.
 */
export function firstTyped(transcript: IndexedTranscript): { text: string | null } | null {
  for (let at = 0; at < transcript.length; at += 1) {
    if (transcript.typedByPerson(at)) return { text: transcript.typedText(at) ?? null };
  }
  return null;
}
