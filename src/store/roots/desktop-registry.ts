import { join } from 'node:path';
import * as z from 'zod';
import { readJsonFile } from '../../session/reading/read-json-file.js';

/** One desktop workspace: its root folder and the sessions it owns, in order (docs/format.md §12). */
const DesktopWorkspaceSchema = z.looseObject({
  id: z.string().optional(),
  root: z.string().optional(),
  title: z.string().optional(),
  sessionIds: z.array(z.string()).default([]),
});

/** Which legacy or v4 source an imported desktop session came from (docs/format.md §12). */
const SourceMappingSchema = z.looseObject({
  sourceKey: z.string().optional(),
  path: z.string(),
  headId: z.string().optional(),
  format: z.string().optional(),
  fingerprint: z.string().optional(),
  sessionId: z.string(),
  workspaceId: z.string().optional(),
});

/**
 * `<state>/desktop/workspace-state-v1.json`, the desktop app's registry (docs/format.md §12), read for what
 * listing needs: workspaces with their sessions, and source mappings. Unknown fields are allowed;
 * versions 1–3 share these fields.
 */
export const DesktopRegistrySchema = z.looseObject({
  version: z.number().int().optional(),
  workspaces: z.record(z.string(), DesktopWorkspaceSchema).default({}),
  sourceMappings: z.record(z.string(), SourceMappingSchema).default({}),
});
export type SourceMapping = z.infer<typeof SourceMappingSchema>;

/** Where the registry lives under a state root (docs/format.md §1.2). */
export function desktopRegistryPath(stateRoot: string): string {
  return join(stateRoot, 'desktop', 'workspace-state-v1.json');
}

/** The facts the registry gives listing: each registered session's workspace root, and the imports. */
export interface DesktopRegistryFacts {
  /** Session id → the root of the workspace whose `sessionIds` holds it (at most one does). */
  workspaceOfSession: Map<string, string>;
  sourceMappings: SourceMapping[];
  /** Set when the file exists but cannot be read: listing says so instead of pretending it is absent. */
  problem?: string;
}

export async function readDesktopRegistry(stateRoot: string): Promise<DesktopRegistryFacts> {
  const path = desktopRegistryPath(stateRoot);
  const read = await readJsonFile(path, DesktopRegistrySchema);
  const facts: DesktopRegistryFacts = { workspaceOfSession: new Map(), sourceMappings: [] };
  if (read.state === 'invalid') facts.problem = `${path}: ${read.reason}`;
  if (read.state === 'unreadable') facts.problem = read.error.message;
  if (read.state !== 'ok') return facts;
  for (const workspace of Object.values(read.value.workspaces)) {
    // The global workspace has no root: its sessions belong to no folder (docs/format.md §12).
    if (!workspace.root) continue;
    for (const id of workspace.sessionIds) facts.workspaceOfSession.set(id, workspace.root);
  }
  facts.sourceMappings = Object.values(read.value.sourceMappings);
  return facts;
}
