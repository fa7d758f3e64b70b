import { createHash } from 'node:crypto';
import { escapeHtml } from './escape-html.js';
import { HTML_GENERATOR_MARK } from './page-marks.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-style.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * What the page allows itself: its own stylesheet and script (by digest), nothing else — no
 * fetch of any kind, no other script, no form or base URL. Even text that escaped escaping could
 * neither run nor load anything.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${hash(PAGE_STYLE)}`,
  `script-src ${hash(PAGE_SCRIPT)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The start of a page up to its `<body>`; `title` is text from a session. */
export function pageStart(title: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n${HTML_GENERATOR_MARK}\n` +
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">\n` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="referrer" content="no-referrer">\n' +
    `<title>${escapeHtml(title)}</title>\n<style>${PAGE_STYLE}</style>\n</head>\n<body>\n<div class="page">\n`
  );
}

/** The end of a page, with the script that drives the folds. */
export function pageEnd(footer: string): string {
  return `<footer>${escapeHtml(footer)}</footer>\n</div>\n<script>${PAGE_SCRIPT}</script>\n</body>\n</html>\n`;
}

/** Open- and close-all buttons, shown only when the script runs. */
export const FOLD_CONTROLS =
  '<div class="controls" id="controls" hidden><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button></div>\n';
