import type { Problem } from '../errors/index.js';
import type { GeneratorMarks } from './page-file.js';
import type { SessionView } from './session-view.js';
import type { SitePage } from './site-state.js';

/**
 * What turns a session's view model into text: `writePages` reads and writes, a renderer only
 * renders (the package's own is the command line's `src/view`). Every page it renders carries its
 * generator mark (`marks.html` in an HTML page's head; a Markdown file is given `marks.markdown` as
 * its first line by the writer), by which a later run knows the file for its own.
 */
export interface PageRenderer {
  /** A session as an HTML page, a piece at a time. */
  html(view: SessionView): AsyncIterable<string>;
  /** A session as Markdown, a piece at a time. */
  markdown(view: SessionView): AsyncIterable<string>;
  /** A site's front page, linking every page by its file name. */
  index(pages: SitePage[], generatedAt: string): string;
  /** A problem on one line, as the site's state keeps why a page stops early. */
  problem(problem: Problem): string;
  marks: GeneratorMarks;
}
