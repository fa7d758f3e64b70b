/**
 * The mark every page rxstore writes carries near its start, so that a later run knows the file
 * for its own and writes it again; a file without it is someone else's. In an HTML page's head:
 */
export const HTML_GENERATOR_MARK = '<meta name="generator" content="rxstore">';
/** The first line of a Markdown file rxstore writes (an HTML comment: nothing shows where it is rendered). */
export const MARKDOWN_GENERATOR_MARK = '<!-- generator: rxstore -->\n';
