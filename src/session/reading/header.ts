import { z } from 'zod';

/** `header.json`, written by the desktop app and `serve` (docs/format.md §9.2). Present means it must be valid. */
export const HeaderSchema = z.looseObject({
  schemaVersion: z.literal(1),
  sessionId: z.string(),
  createdAt: z.iso.datetime({ offset: true }).refine((time) => !time.startsWith('0001-01-01'), 'createdAt must not be the zero time'),
  cwd: z.string().optional(),
  parentSessionId: z.string().optional(),
  origin: z.enum(['new', 'fork', 'canonical-v4-import', 'legacy-import']),
});
/** A session's `header.json`. */
export type Header = z.infer<typeof HeaderSchema>;
