/**
 * The page renderer's entry, the one door the command line opens into `src/view`: a session as an
 * HTML page or Markdown, and a site of every session. Like the command line, the renderer is a
 * client of the library's main entry.
 */
export { checkPageFile, MARKDOWN_GENERATOR_MARK } from './page-target.js';
export { renderHtml } from './render-html.js';
export { renderMarkdown } from './render-markdown.js';
export { readSessionView, type SessionView } from './session-view.js';
export { writeSite, type SiteReport } from './write-site.js';
