import * as z from 'zod';

/**
 * `<id>.jsonl.meta`, a JSONL transcript's BranchMeta (docs/format.md §11.3). Every field but the two times
 * is optional; unknown fields are kept, as newer Reasonix builds add some.
 */
export const JsonlMetaSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  parent_id: z.string().optional(),
  fork_turn: z.number().optional(),
  fork_message_index: z.number().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  scope: z.enum(['project', 'global']).optional(),
  workspace_root: z.string().optional(),
  topic_id: z.string().optional(),
  topic_title: z.string().optional(),
  custom_title: z.string().optional(),
  model: z.string().optional(),
  turns: z.number().optional(),
  preview: z.string().optional(),
});
/** A JSONL transcript's `.jsonl.meta` sidecar. */
export type JsonlMeta = z.infer<typeof JsonlMetaSchema>;

/** A JSONL session's own title: `custom_title`, then `topic_title`; Reasonix shows `preview` after them (docs/format.md §11.3). */
export function jsonlMetaTitle(meta: JsonlMeta): string | undefined {
  return meta.custom_title || meta.topic_title || undefined;
}
