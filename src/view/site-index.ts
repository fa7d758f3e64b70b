import { escapeHtml } from './escape-html.js';
import { pageEnd, pageStart } from './page-shell.js';
import type { SitePage } from '../index.js';
import { formatTime, plural } from './view-format.js';

const NO_WORKSPACE = '(no workspace)';

/**
 * The site's front page: every session grouped by workspace (the workspace with the most recent
 * session first), newest first within each, linking to its page. Links are built from page file
 * names the site chose (`pageFileName`), never from session text.
 */
export function siteIndexHtml(pages: SitePage[], generatedAt: string): string {
  const groups = new Map<string, SitePage[]>();
  const newestFirst = [...pages].sort(
    (a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.id.localeCompare(b.id),
  );
  for (const page of newestFirst) {
    const workspace = page.workspace ?? NO_WORKSPACE;
    groups.set(workspace, [...(groups.get(workspace) ?? []), page]);
  }
  let html = pageStart('Reasonix sessions');
  html += `<header class="session">\n<p class="kicker">Reasonix sessions</p>\n<h1>${escapeHtml(plural(pages.length, 'session'))} in ${escapeHtml(plural(groups.size, 'workspace'))}</h1>\n</header>\n<main>\n`;
  for (const [workspace, group] of groups) {
    html += `<h2 class="mono">${escapeHtml(workspace)}</h2>\n<table class="sessions"><thead><tr><th>Session</th><th>Started</th><th>Updated</th><th class="num">Messages</th><th class="num">Tool calls</th><th>Status</th></tr></thead><tbody>\n`;
    for (const page of group) {
      const tone = page.status === 'ok' ? 'ok' : page.status === 'torn-tail' ? 'warn' : 'fail';
      // data-label: the column's name, shown before a cell where a narrow screen stacks a row's cells.
      html +=
        `<tr><td><a href="sessions/${encodeURIComponent(page.file)}">${escapeHtml(page.title ?? 'Untitled session')}</a><br><span class="mono cut">${escapeHtml(page.id)} <span class="nowrap">· ${escapeHtml(page.store)}</span></span></td>` +
        `<td data-label="Started">${timeHtml(page.startedAt)}</td><td data-label="Updated">${timeHtml(page.updatedAt)}</td>` +
        `<td class="num" data-label="Messages">${page.messages}</td><td class="num" data-label="Tool calls">${page.toolCalls}</td><td class="status"><span class="badge ${tone}">${escapeHtml(page.status)}</span></td></tr>\n`;
    }
    html += '</tbody></table>\n';
  }
  html += '</main>\n';
  return html + pageEnd(`Rendered by rxstore at ${generatedAt}`);
}

/** A time as its date and its clock, each kept on one line: a narrow column breaks between them, never inside. */
function timeHtml(iso: string | null): string {
  const [date, ...clock] = formatTime(iso).split(' ');
  return clock.length === 0
    ? escapeHtml(date!)
    : `<span class="nowrap">${escapeHtml(date!)}</span> <span class="nowrap">${escapeHtml(clock.join(' '))}</span>`;
}
