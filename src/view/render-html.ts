import { cutText, formatBytes, type CutLimits } from './cut-text.js';
import type { DiffLine, SessionView, ToolCallView, ViewHeader, ViewItem } from '../index.js';
import { escapeHtml } from './escape-html.js';
import { FOLD_CONTROLS, pageEnd, pageStart } from './page-shell.js';
import {
  describeProblem,
  formatClock,
  headerFacts,
  LIMITS,
  plural,
  roleLabel,
  toolBadges,
  turnNote,
} from './view-format.js';

/**
 * A session as one self-contained HTML page, streamed a piece at a time. Every text from the
 * session goes through `escapeHtml` into element content — never into a tag, an attribute or a
 * URL — and the page fetches nothing.
 */
export async function* renderHtml(view: SessionView): AsyncGenerator<string> {
  const { header } = view;
  yield pageStart(header.title ? `${header.title} · Reasonix session` : `Reasonix session ${header.id}`);
  yield headerHtml(header);
  yield '<main>\n';
  for await (const item of view.items) yield itemHtml(item);
  const stopped = view.stoppedBy();
  if (stopped) {
    yield `<div class="banner damage" role="alert"><strong>The session stops here.</strong> ${escapeHtml(describeProblem(stopped))}</div>\n`;
  }
  yield '</main>\n';
  yield pageEnd(`Rendered by rxstore from ${header.path}`);
}

function headerHtml(header: ViewHeader): string {
  const facts = headerFacts(header);
  let html = '<header class="session">\n<p class="kicker">Reasonix session</p>\n';
  html += `<h1>${escapeHtml(header.title ?? 'Untitled session')}</h1>\n<dl class="facts">\n`;
  for (const [name, value] of facts) html += `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>\n`;
  html += '</dl>\n';
  if (header.resume) html += `<p class="resume"><span>Resume</span><code>${escapeHtml(header.resume)}</code></p>\n`;
  for (const problem of header.damage) {
    html += `<div class="banner damage" role="alert"><strong>Reasonix would refuse this session.</strong> ${escapeHtml(describeProblem(problem))}. The page shows what was read before it.</div>\n`;
  }
  if (header.tornTailBytes > 0) {
    html += `<div class="banner note">${escapeHtml(plural(header.tornTailBytes, 'byte'))} of an unfinished write at the end of the log (a torn tail) are not part of the session and not shown.</div>\n`;
  }
  return `${html}${FOLD_CONTROLS}</header>\n`;
}

function itemHtml(item: ViewItem): string {
  switch (item.type) {
    case 'message':
      return messageHtml(item);
    case 'tool':
      return toolHtml(item.call, item.time, item.messageIds);
    case 'compaction':
      return (
        '<div class="marker warn">Context compacted here: earlier messages stay in the transcript, the model was sent a summary from now on</div>\n' +
        (item.summary
          ? `<details class="more summary-box"><summary>The summary the model was sent</summary>${textHtml(item.summary, LIMITS.message)}</details>\n`
          : '')
      );
    case 'turn':
      return `<div class="marker ${item.status === 'in_progress' ? 'warn' : 'fail'}">${escapeHtml(turnNote(item.status))}</div>\n`;
  }
}

/** The anchor a search hit links to: `#m-<message id>`. */
function anchor(messageId: string | null): string {
  return messageId === null ? '' : ` id="m-${escapeHtml(messageId)}"`;
}

function messageHtml(item: Extract<ViewItem, { type: 'message' }>): string {
  const roleClass =
    item.role === 'user'
      ? 'user'
      : item.role === 'assistant'
        ? 'assistant'
        : item.role === 'system'
          ? 'system'
          : 'other';
  let html = `<article class="msg ${roleClass}"${anchor(item.messageId)}>\n<div class="who"><span class="role">${escapeHtml(roleLabel(item.role))}</span><span>${escapeHtml(formatClock(item.time))}</span>`;
  if (item.storedBytes !== null)
    html += `<span class="badge plain">${escapeHtml(formatBytes(item.bytes))} · content store</span>`;
  html += '</div>\n<div class="body">';
  if (item.reasoning)
    html += `<details class="reasoning"><summary>Reasoning</summary>${textHtml(item.reasoning, LIMITS.message)}</details>`;
  const head = cutText(item.text, item.role === 'system' ? LIMITS.systemHead : LIMITS.messageHead);
  // A long message (or one large enough for the content store) shows its start; the rest is one click away.
  if (item.role === 'system' || item.storedBytes !== null || head.moreLines > 0) {
    const shown = head.moreLines > 0 ? head.shown : item.text;
    html += messageTextHtml(shown);
    const rest = item.text.slice(shown.length);
    if (rest !== '') {
      const restCut = cutText(rest, LIMITS.message);
      // The label says what a click does: show the rest when closed, show less when open (by CSS, so also with no script).
      const more = `Show ${plural(head.moreLines, 'more line')} (${formatBytes(item.bytes)} in all)`;
      html += `<details class="more"><summary><span class="if-closed">${escapeHtml(more)}</span><span class="if-open">Show less</span></summary>${messageTextHtml(restCut.shown)}${cutNote(restCut.moreLines, restCut.bytes)}</details>`;
    }
  } else {
    const cut = cutText(item.text, LIMITS.message);
    html += messageTextHtml(cut.shown) + cutNote(cut.moreLines, cut.bytes);
  }
  return `${html}</div>\n</article>\n`;
}

/**
 * Message text: prose kept as written (line breaks and spacing), fenced code blocks as code. The
 * fence lines themselves are shown too (muted): what follows a fence's backticks is text the
 * message holds, and every character of a message is on the page.
 */
function messageTextHtml(text: string): string {
  let html = '';
  for (const part of splitFences(text)) {
    if (part.code) {
      const close = part.close === undefined ? '' : `\n<span class="fence">${escapeHtml(part.close)}</span>`;
      html += `<pre>\n<span class="fence">${escapeHtml(part.open)}</span>\n<code>${escapeHtml(part.text)}</code>${close}</pre>`;
    } else if (part.text.trim() !== '') {
      html += `<div class="text">${escapeHtml(part.text.replace(/^\n+|\n+$/g, ''))}</div>`;
    }
  }
  return html;
}

type MessagePart =
  | { code: false; text: string }
  | { code: true; open: string; text: string; close: string | undefined };

/** Prose and fenced blocks of a message, in order, with their fence lines; an unclosed fence runs to the end. */
function splitFences(text: string): MessagePart[] {
  const parts: MessagePart[] = [];
  const fence = /^ {0,3}(`{3,}|~{3,})[^\n]*\n/gm;
  let at = 0;
  for (let open = fence.exec(text); open; open = fence.exec(text)) {
    if (open.index < at) continue;
    parts.push({ code: false, text: text.slice(at, open.index) });
    const marker = open[1]!;
    const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`, 'm');
    const bodyStart = open.index + open[0].length;
    const found = close.exec(text.slice(bodyStart));
    const bodyEnd = found ? bodyStart + found.index : text.length;
    parts.push({
      code: true,
      open: open[0].slice(0, -1),
      text: text.slice(bodyStart, bodyEnd).replace(/\n$/, ''),
      close: found?.[0],
    });
    at = found ? bodyEnd + found[0].length : text.length;
    fence.lastIndex = at;
  }
  parts.push({ code: false, text: text.slice(at) });
  return parts;
}

function toolHtml(call: ToolCallView, time: string, messageIds: readonly string[]): string {
  // The first id anchors the call; a second (its result's) an empty mark inside it.
  let html = `<details class="tool"${anchor(messageIds[0] ?? null)}><summary>${messageIds
    .slice(1)
    .map((id) => `<span${anchor(id)}></span>`)
    .join(
      '',
    )}<span class="name mono">${escapeHtml(call.name)}</span><span class="target mono">${escapeHtml(call.target)}</span>`;
  for (const badge of toolBadges(call)) html += `<span class="badge ${badge.tone}">${escapeHtml(badge.text)}</span>`;
  if (call.result && call.result.storedBytes !== null)
    html += `<span class="badge plain">${escapeHtml(formatBytes(call.result.bytes))}</span>`;
  html += `</summary>\n<div class="part"><h3>Arguments · ${escapeHtml(formatClock(time))}</h3>${textHtml(call.arguments || '(none)', LIMITS.toolArguments)}</div>\n`;
  for (const edit of call.edits)
    html += `<div class="part"><h3>Change to <span class="path mono">${escapeHtml(edit.path || 'the file')}</span></h3>${diffHtml(edit.lines)}</div>\n`;
  if (call.result) {
    // One size for an output: its text's. The stored payload (JSON, escapes and all) is larger, and named as such.
    const { bytes, storedBytes } = call.result;
    const size =
      storedBytes !== null
        ? ` · ${formatBytes(bytes)} of text, kept in the content store as a ${formatBytes(storedBytes)} JSON payload`
        : '';
    html += `<div class="part"><h3>Output${escapeHtml(size)}</h3>${textHtml(call.result.text || '(no output)', LIMITS.toolOutput)}</div>\n`;
  } else {
    html += '<div class="part"><p class="cut">No result was recorded for this call.</p></div>\n';
  }
  return `${html}</details>\n`;
}

function textHtml(text: string, limits: CutLimits): string {
  const cut = cutText(text, limits);
  return `<pre>\n${escapeHtml(cut.shown)}</pre>${cutNote(cut.moreLines, cut.bytes)}`;
}

function diffHtml(lines: DiffLine[]): string {
  const shown = lines.slice(0, LIMITS.diff.lines);
  let html = '<pre class="diff">';
  let chars = 0;
  let count = 0;
  for (const line of shown) {
    chars += line.text.length;
    if (chars > LIMITS.diff.chars) break;
    const [cls, sign] = line.kind === 'added' ? ['add', '+'] : line.kind === 'removed' ? ['del', '-'] : ['same', ' '];
    html += `<span class="${cls}">${sign}${escapeHtml(line.text)}</span>`;
    count += 1;
  }
  return `${html}</pre>${cutNote(lines.length - count, 0)}`;
}

function cutNote(moreLines: number, bytes: number): string {
  if (moreLines <= 0) return '';
  return `<p class="cut">… ${escapeHtml(plural(moreLines, 'more line'))} not shown${bytes > 0 ? ` (${escapeHtml(formatBytes(bytes))} in all)` : ''}</p>`;
}
