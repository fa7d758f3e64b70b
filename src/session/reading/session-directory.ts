import { basename, join } from 'node:path';
import type { Problem } from '../../errors/index.js';
import { lstatOrUndefined } from '../../fs/stat-or-undefined.js';
import { V4_CODEC, V4_SCHEMA_VERSION } from '../../codec/records.js';
import { blockedFiles, unwritableFiles, type BlockedFile } from './blocked-files.js';
import { readHeader, type Header } from './header.js';
import { OPEN_STORAGE_REVISIONS, readManifest, type Manifest } from './manifest.js';
import { readableOrThrow } from './read-json-file.js';
import { SESSION_FILES } from './session-files.js';

/** What a session directory says of the session before its log is read. */
export interface SessionDirectoryRead {
  /** Refusals (errors) and warnings, in the order Reasonix meets them. */
  problems: Problem[];
  /** The session directory is a symlink: Reasonix looks no further. */
  symlink: boolean;
  manifest?: Manifest;
  header?: Header;
  /** Files Reasonix must use to open the session that it cannot use. */
  blocked: BlockedFile[];
}

/**
 * The session's directory as Reasonix 1.38.11 judges it before it reads the log (docs/format.md §2, §9): a
 * symlinked directory, the manifest (missing, invalid, another session's, an unsupported version, an
 * unpublished draft), the header, and the writer lock and storage identity it must use. Every reader of
 * a session starts here, so that none gives the log of a session Reasonix refuses as if it were sound.
 */
export async function readSessionDirectory(dir: string): Promise<SessionDirectoryRead> {
  const id = basename(dir);
  const problems: Problem[] = [];
  // Stryker disable next-line ArrayDeclaration: set again before it is read, except for a session directory that is a symlink, whose read returns before …
  const read: SessionDirectoryRead = { problems, symlink: false, blocked: [] };
  const refuse = (problem: Omit<Problem, 'severity'>) => problems.push({ ...problem, severity: 'error' });
  // Stryker disable next-line StringLiteral: readSession gives each problem its severity again (error or warning), and the readers since a cursor look …
  const warn = (problem: Omit<Problem, 'severity'>) => problems.push({ ...problem, severity: 'warning' });

  if (lstatOrUndefined(dir)?.isSymbolicLink()) {
    refuse({
      code: 'RX_SESSION_SYMLINK',
      message: 'the session directory is a symlink: Reasonix refuses to open it',
      data: { file: dir },
    });
    read.symlink = true;
    return read;
  }
  const manifestPath = join(dir, SESSION_FILES.manifest);
  const manifest = readableOrThrow(await readManifest(manifestPath));
  if (manifest.state === 'missing')
    refuse({ code: 'RX_MANIFEST_MISSING', message: 'manifest.json is missing', data: { file: manifestPath } });
  else if (manifest.state === 'invalid')
    refuse({
      code: 'RX_MANIFEST_INVALID',
      message: `invalid manifest: ${manifest.reason}`,
      data: { file: manifestPath },
    });
  else {
    const value = manifest.value;
    read.manifest = value;
    const revision = value.storageRevision ?? 0;
    if (value.schemaVersion !== V4_SCHEMA_VERSION || value.codec !== V4_CODEC) {
      refuse({
        code: 'RX_UNSUPPORTED_VERSION',
        message: `unsupported session storage version: codec ${value.codec}, schemaVersion ${value.schemaVersion}`,
        data: { file: manifestPath },
      });
    } else if (revision < 0 || revision > OPEN_STORAGE_REVISIONS.at(-1)!) {
      refuse({
        code: 'RX_UNSUPPORTED_VERSION',
        message: `unsupported session storage version: storageRevision ${revision}`,
        data: { file: manifestPath },
      });
    } else if (revision === 0) {
      warn({
        code: 'RX_UNPUBLISHED_DRAFT',
        message:
          'manifest has no storageRevision: Reasonix would import this draft under a new id instead of resuming it',
        data: { file: manifestPath },
      });
    }
    if (value.sessionId !== id) {
      refuse({
        code: 'RX_MANIFEST_ID',
        message: `manifest belongs to ${JSON.stringify(value.sessionId)}, not to directory ${JSON.stringify(id)}`,
        data: { file: manifestPath },
      });
    }
  }

  const headerPath = join(dir, SESSION_FILES.header);
  const header = readableOrThrow(await readHeader(headerPath));
  if (header.state === 'invalid')
    refuse({
      code: 'RX_HEADER_INVALID',
      message: `invalid session header: ${header.reason}`,
      data: { file: headerPath },
    });
  else if (header.state === 'ok') {
    read.header = header.value;
    if (header.value.schemaVersion !== 1)
      refuse({
        code: 'RX_UNSUPPORTED_VERSION',
        message: `unsupported session storage version: header schemaVersion ${header.value.schemaVersion}`,
        data: { file: headerPath },
      });
    else if (header.value.sessionId !== id)
      refuse({
        code: 'RX_HEADER_INVALID',
        message: `invalid session header: sessionId ${JSON.stringify(header.value.sessionId)}`,
        data: { file: headerPath },
      });
  }

  // Reasonix takes the writer lock and writes the identity before it reads the log.
  read.blocked = blockedFiles(dir);
  for (const { file, why } of read.blocked) {
    // Each is a file Reasonix makes when it is missing: what to do is said with the refusal.
    refuse({
      code: 'RX_BLOCKED_FILE',
      message: `${basename(file)} is ${why}, and refuses to open the session (moved aside, it is made again when Reasonix opens the session)`,
      data: { file },
    });
  }
  // What this user may not write: Reasonix, run by this user, refuses the session; its owner opens it.
  for (const { file, why } of unwritableFiles(dir)) {
    warn({
      code: 'RX_NOT_WRITABLE',
      message: `${basename(file)} is ${why}, and refuses to open the session (a user who may can)`,
      data: { file },
    });
  }
  return read;
}
