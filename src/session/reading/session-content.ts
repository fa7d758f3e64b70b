import { join } from 'node:path';
import { ContentStore, contentRootFor } from '../../codec/content-store.js';
import { readManifest } from './manifest.js';
import { readableOrThrow } from './read-json-file.js';
import { SESSION_FILES } from './session-files.js';

/** The content store a session's payloadRefs resolve in, as its manifest's `contentRoot` picks it (docs/format.md §6.2). */
export async function sessionContentStore(sessionDir: string): Promise<ContentStore> {
  const manifest = readableOrThrow(await readManifest(join(sessionDir, SESSION_FILES.manifest)));
  return new ContentStore(contentRootFor(sessionDir, manifest.state === 'ok' ? manifest.value.contentRoot : undefined));
}
