import { createHash } from 'node:crypto';
import * as z from 'zod';

/** The page names rxstore gives: `pageFileName`'s, with `-<n>` before `.html` where two sessions would share one. */
const PAGE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}\.html$/;

/** What the site remembers of each page it wrote: enough to skip an unchanged session and to list it. */
export const SitePageSchema = z.object({
  /** A name `pageFileName` gives (a plain name, no folder, no leading dot): it can only name a file in `sessions/`. */
  file: z.string().regex(PAGE_FILE_NAME, 'not a page name rxstore gives'),
  digest: z.string(),
  id: z.string(),
  path: z.string(),
  store: z.string(),
  title: z.string().nullable(),
  workspace: z.string().nullable(),
  startedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  messages: z.number(),
  toolCalls: z.number(),
  status: z.string(),
  /** Why the page stops early, as one line: code, what, where. */
  problem: z.string().nullable(),
});
export type SitePage = z.infer<typeof SitePageSchema>;

/** `rxstore-site.json` in the site folder. */
export const SiteStateSchema = z.object({
  format: z.literal(1),
  /** Pages written by another renderer are written again. */
  renderer: z.string(),
  pages: z.array(SitePageSchema),
});
export type SiteState = z.infer<typeof SiteStateSchema>;

export const SITE_STATE_FILE = 'rxstore-site.json';

/** Bump when pages change shape: every page is then written again. */
export const RENDERER_VERSION = 'view-3';

/**
 * A file name for a session's page: the id where it is a plain name (Reasonix ids are), else a
 * digest of it, so no id can name a path outside the site or an odd file.
 */
export function pageFileName(id: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)) return `${id}.html`;
  return `session-${createHash('sha256').update(id).digest('hex').slice(0, 24)}.html`;
}
