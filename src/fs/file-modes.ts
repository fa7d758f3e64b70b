// The modes rxstore makes files and folders with: apart, so that the lock and temp-file modules can use them too.
/** Files rxstore writes into a store are private to their owner, as Reasonix's are (docs/format.md §2). */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/**
 * What a user asks for at a path they name (a page, a site, an export, a cursor) is made as cp and
 * tar make files: the user's umask decides who else may read a new one (a site served to others is
 * readable), and one written over keeps its mode (and, written by root, its owner), as `cp` over a
 * file keeps them.
 */
export const OUTPUT_FILE_MODE = 0o666;
export const OUTPUT_DIR_MODE = 0o777;
