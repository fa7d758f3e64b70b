import { fileURLToPath } from 'node:url';

/** The repository's root, for tests that read committed fixtures and vectors. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const vectorsDir = fileURLToPath(new URL('../vectors/', import.meta.url));
