import type { PageRenderer } from '../index.js';
import { HTML_GENERATOR_MARK, MARKDOWN_GENERATOR_MARK } from './page-marks.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';
import { siteIndexHtml } from './site-index.js';
import { describeProblem } from './view-format.js';

/** The renderer `writePages` writes with: pages as HTML or Markdown, the site's index, and the marks they carry. */
export const pageRenderer: PageRenderer = {
  html: renderHtml,
  markdown: renderMarkdown,
  index: siteIndexHtml,
  problem: describeProblem,
  marks: { html: HTML_GENERATOR_MARK, markdown: MARKDOWN_GENERATOR_MARK },
};
