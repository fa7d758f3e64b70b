import { readFileSync } from 'node:fs';
import * as z from 'zod';

/** rxstore's version, from its package.json (two folders up from `src/cli`, `dist/cli` and `dist/bundle`). */
export function rxstoreVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return z.object({ version: z.string() }).parse(JSON.parse(text)).version;
}
