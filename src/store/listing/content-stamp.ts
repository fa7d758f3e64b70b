import { sep } from 'node:path';
import * as z from 'zod';
import { CONTENT_DIR } from '../../codec/content-store.js';
import { filesStamp } from '../../fs/files-stamp.js';
import { CorruptContentError, MissingContentError } from '../../errors/index.js';

/**
 * Content-store files a read of a v4 copy took (its payloads' objects and integrity indexes) and a
 * stamp of them (`filesStamp`): what a kept read depends on outside the session's directory. The
 * read holds while the stamp does; an object removed, damaged or put back changes it, which no
 * stamp of the log, manifest or header would tell.
 */
export const ContentStampSchema = z.object({ files: z.array(z.string()), stamp: z.string() });
/** Content-store files a read took, and their stamp (`filesStamp`): the read holds while the stamp does. */
export type ContentStamp = z.infer<typeof ContentStampSchema>;

/** The stamp of a read's content-store files; undefined when it took none. */
export function contentStampOf(files: readonly string[]): ContentStamp | undefined {
  return files.length === 0 ? undefined : { files: [...files], stamp: filesStamp(files) };
}

/** Whether one of the files changed since they were stamped (a stat of each). */
export function contentChanged(content: ContentStamp): boolean {
  return content.stamp !== filesStamp(content.files);
}

/**
 * The content-store file a read stopped at (an object or integrity index missing or damaged), or
 * undefined: stamped with the files read before it, so that putting it back, or mending it, is
 * seen as a change like any other.
 */
export function contentFileOf(error: unknown): string | undefined {
  if (!(error instanceof MissingContentError || error instanceof CorruptContentError)) return undefined;
  // Only a file of the store: a ref the log itself gets wrong (a digest that is no digest) names the log.
  const file = error.data.file;
  return file !== undefined && file.split(sep).includes(CONTENT_DIR) ? file : undefined;
}
