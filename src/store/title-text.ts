/** Longest title shown; longer text is cut with an ellipsis. */
const TITLE_CHARACTERS = 80;

/** A one-line title from free text (a first user message, a preview): whitespace collapsed, cut to 80 characters. */
export function titleFromText(text: string | null | undefined): string | null {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  const characters = [...line];
  return characters.length > TITLE_CHARACTERS ? `${characters.slice(0, TITLE_CHARACTERS - 1).join('')}…` : line;
}
