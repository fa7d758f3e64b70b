import * as z from 'zod';

/** Where the desktop app keeps its sessions in a state root, by id (docs/format.md §12). */
export const DESKTOP_SESSIONS = 'desktop-sessions-v5/by-id';

/** One session to move: a sessions-v4 directory or a JSONL transcript with its sidecars. */
export const PlannedSessionSchema = z.strictObject({
  /** A name within its store: a journal read back naming `..` or a path is refused, never followed out of it. */
  id: z.string().regex(/^(?!\.\.?$)[^/\\\0]+$/, 'a session id is one name, not a path'),
  store: z.enum(['sessions-v4', 'jsonl']),
  /** sessions-v4: the files of the shared content store its log names, relative to `.content-v1`; jsonl: none. */
  content: z.array(
    z
      .string()
      .refine(
        (path) => !path.split(/[/\\]/).includes('..') && !/^([/\\]|[A-Za-z]:)/.test(path),
        'a content file is a path inside the content store',
      ),
  ),
  /** jsonl: the transcript's files and folders in its store folder, the transcript last; sessions-v4: none. */
  files: z.array(z.string().regex(/^(?!\.\.?$)[^/\\\0]+$/, 'a transcript file is one name in its folder')),
  /** What a check after the move must find again: sessions-v4, its last committed sequence; jsonl, the transcript's size. */
  extent: z.number().int().nullable(),
});
export type PlannedSession = z.infer<typeof PlannedSessionSchema>;

/** What moves under one state root: `<state>/projects/<old slug>` into `<state>/projects/<new slug>`. */
export const StorePlanSchema = z.strictObject({
  stateRoot: z.string(),
  /** The old slug's folder as it is on disk (on Windows an older Reasonix may have made it in mixed case). */
  fromDir: z.string(),
  toDir: z.string(),
  sessions: z.array(PlannedSessionSchema),
  /** Other entries of the old slug's folder (Reasonix keeps more than sessions there), moved whole. */
  others: z.array(z.string()),
  /** Workspaces of the desktop registry whose root is the old folder. */
  desktopWorkspaces: z.array(z.string()),
  /** Desktop sessions (`desktop-sessions-v5/by-id/<id>`) whose `header.json` `cwd` is the old folder: they stay where they are, their `cwd` names the new one. */
  desktopSessions: z.array(z.string()).default([]),
  /** Whether the old and new folders are on one file system: sessions are renamed and content objects hard-linked. */
  sameDevice: z.boolean(),
});
export type StorePlan = z.infer<typeof StorePlanSchema>;

/**
 * What `relocate` will do, decided before anything moves: returned by `planRelocation`, printed by
 * `--dry-run`, and kept in each state root as the relocation's journal until it is done, so a
 * re-run after a crash finishes the same move. Read back through this schema.
 */
export const RelocationPlanSchema = z.strictObject({
  version: z.literal(1),
  platform: z.enum(['linux', 'darwin', 'win32']),
  from: z.string(),
  to: z.string(),
  fromSlug: z.string(),
  toSlug: z.string(),
  /** Only this session moves; null: every session under the old slug, and the workspace's other files. */
  session: z.string().nullable(),
  /** Old copies are left where they are. */
  keep: z.boolean(),
  stores: z.array(StorePlanSchema),
  /** Bytes that must be copied (not renamed or linked), checked against the free space. */
  copyBytes: z.number().int().nonnegative(),
  /** Things the plan says before it is carried out: the old folder still there, a relocation being finished. */
  notes: z.array(z.string()),
  /** The Reasonix variables the roots were found with: the resume command printed after the move carries them. */
  pinned: z
    .strictObject({ REASONIX_HOME: z.string().optional(), REASONIX_STATE_HOME: z.string().optional() })
    .default({}),
});
export type RelocationPlan = z.infer<typeof RelocationPlanSchema>;
