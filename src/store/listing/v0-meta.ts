import { z } from 'zod';

/** `<name>.meta.json` beside a v0.x (TypeScript Reasonix) transcript (docs/format.md §11.4). */
export const V0MetaSchema = z.looseObject({
  workspace: z.string().optional(),
  summary: z.string().optional(),
});
/** The metadata of a v0.x session. */
export type V0Meta = z.infer<typeof V0MetaSchema>;
