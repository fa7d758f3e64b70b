import { escapeControls } from '../view/control-characters.js';

/** Text from data as human output shows it: every control character escaped (`\n`, `\x1b`, `\u202e`), the rest as is. */
export function printable(text: string): string {
  return escapeControls(text);
}
