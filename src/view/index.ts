/**
 * The page renderer's entry, the one door the command line opens into `src/view`: a session's
 * view model (the library's `SessionView`) as an HTML page or Markdown, and a site's index. What
 * is read and written is the library's (`writePages`); the renderer only turns a model into text.
 */
export { pageRenderer } from './page-renderer.js';
