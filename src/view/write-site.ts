import { createHash } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RxError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { writeStreamAtomic } from '../fs/atomic-stream.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import type { ListedSession } from '../store/listing/describe-conversation.js';
import { openSession } from '../store/open-session.js';
import type { Platform } from '../store/roots/platform.js';
import { renderHtml } from './render-html.js';
import { readSessionView } from './session-view.js';
import { siteIndexHtml } from './site-index.js';
import { describeProblem } from './view-format.js';
import { pageFileName, RENDERER_VERSION, SITE_STATE_FILE, SiteStateSchema, type SitePage } from './site-state.js';

export interface SiteReport {
  index: string;
  sessions: number;
  written: number;
  unchanged: number;
  removed: number;
  /** Sessions rendered up to damage (or not at all), with why. */
  damaged: { id: string; path: string; problem: string }[];
}

/**
 * Writes a static site of sessions into `dir`: `index.html` and one page per session under
 * `sessions/`. A session whose log (size, modification time) and listing are what they were when
 * its page was written is not read again; pages of sessions no longer listed are removed. Every
 * file is written through a temp file and a rename.
 */
export async function writeSite(
  sessions: AsyncIterable<ListedSession>,
  dir: string,
  options: { platform: Platform; now?: Date; resume?: (listed: ListedSession) => string | null },
): Promise<SiteReport> {
  const pagesDir = join(dir, 'sessions');
  await mkdir(pagesDir, { recursive: true });
  const statePath = join(dir, SITE_STATE_FILE);
  const previous = readableOrThrow(await readJsonFile(statePath, SiteStateSchema));
  const known = new Map<string, SitePage>();
  if (previous.state === 'ok' && previous.value.renderer === RENDERER_VERSION) for (const page of previous.value.pages) known.set(page.file, page);

  const report: SiteReport = { index: join(dir, 'index.html'), sessions: 0, written: 0, unchanged: 0, removed: 0, damaged: [] };
  const pages: SitePage[] = [];
  const taken = new Set<string>();
  for await (const listed of sessions) {
    const file = uniqueName(pageFileName(listed.id), taken);
    const digest = await sessionDigest(listed);
    const before = known.get(file);
    report.sessions += 1;
    if (before && before.digest === digest && before.path === listed.path && (await exists(join(pagesDir, file)))) {
      pages.push(before);
      report.unchanged += 1;
      if (before.problem) report.damaged.push({ id: listed.id, path: listed.path, problem: before.problem });
      continue;
    }
    let view;
    try {
      view = await readSessionView(await openSession(listed.path), { platform: options.platform, ...(options.resume ? { resume: options.resume(listed) } : {}) });
    } catch (error) {
      // One session rxstore cannot read (the system refuses it, it is larger than rxstore holds) gets no
      // page and a line with its code; the site goes on with the rest.
      if (!(error instanceof RxError)) throw error;
      report.damaged.push({ id: listed.id, path: listed.path, problem: `${error.code}: ${error.data.file && !error.message.startsWith(error.data.file) ? `${error.data.file}: ` : ''}${error.message}` });
      continue;
    }
    await writeStreamAtomic(join(pagesDir, file), renderHtml(view));
    const stopped = view.stoppedBy();
    const problem = stopped ? describeProblem(stopped) : null;
    if (problem) report.damaged.push({ id: listed.id, path: listed.path, problem });
    const { header } = view;
    pages.push({
      file,
      digest,
      id: listed.id,
      path: listed.path,
      store: listed.store,
      title: header.title ?? listed.title,
      workspace: header.workspace ?? listed.workspace,
      startedAt: header.startedAt,
      updatedAt: header.updatedAt ?? listed.updatedAt,
      messages: header.counts.messages,
      toolCalls: header.counts.toolCalls,
      status: header.status,
      problem,
    });
    report.written += 1;
  }
  for (const file of known.keys()) {
    if (taken.has(file)) continue;
    await rm(join(pagesDir, file), { force: true });
    report.removed += 1;
  }
  await writeFileAtomic(report.index, siteIndexHtml(pages, (options.now ?? new Date()).toISOString()));
  await writeFileAtomic(statePath, `${JSON.stringify({ format: 1, renderer: RENDERER_VERSION, pages }, null, 1)}\n`);
  return report;
}

/**
 * What a page depends on, as a digest: the session's files (a log only grows or is rewritten, and
 * either changes its size or modification time) and what the listing says of it.
 */
async function sessionDigest(listed: ListedSession): Promise<string> {
  const files = listed.path.endsWith('.jsonl') ? [listed.path, `${listed.path}.meta`] : [join(listed.path, SESSION_FILES.log), join(listed.path, SESSION_FILES.manifest)];
  const facts: unknown[] = [RENDERER_VERSION, listed.path, listed.updatedAt, listed.title, listed.workspace, listed.status, listed.messages];
  for (const file of files) {
    const stats = await stat(file, { bigint: true }).catch(() => undefined);
    facts.push(stats ? [String(stats.size), String(stats.mtimeNs), String(stats.ino)] : null);
  }
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = name.replace(/\.html$/, `-${n}.html`);
  taken.add(candidate);
  return candidate;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

