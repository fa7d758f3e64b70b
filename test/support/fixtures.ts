import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export interface FixtureNote {
  name: string;
  id: string;
  sessionDir: string;
  workspace: string;
  /** The state root (HOME and REASONIX_HOME) Reasonix ran with; the fixture folder mirrors it. */
  stateRoot: string;
  counts: {
    batches: number;
    events: number;
    payloadRefs: number;
    eventsByKind: Record<string, number>;
    messagesByRole: Record<string, number>;
  };
}

export const FIXTURE_NAMES = [
  'plain-chat',
  'tool-calls',
  'payload-ref',
  'cjk-emoji',
  'titled',
  'jsonl-migrated',
  'interrupted',
  'compacted',
] as const;

/** A committed fixture written by the real Reasonix, with its note; `dir` is the session directory. */
export function fixture(name: (typeof FIXTURE_NAMES)[number]): FixtureNote & { dir: string; root: string } {
  const root = join(repoRoot, 'fixtures', name);
  const note = JSON.parse(readFileSync(join(root, 'fixture.json'), 'utf8')) as FixtureNote;
  return { ...note, root, dir: join(root, note.sessionDir) };
}
