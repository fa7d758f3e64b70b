import { cutText, formatBytes } from './cut-text.js';
import { fencedBlock, htmlBlockText, inlineCode, markdownText } from './markdown-fence.js';
import type { SessionView, ToolCallView, ViewHeader, ViewItem } from '../index.js';
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
 * A session as Markdown for an issue or a pull request, streamed a piece at a time. Text from
 * the session only ever appears inside a fence it cannot close, an inline code span, escaped
 * Markdown text, or (in a `<summary>`) escaped HTML on one line; control characters are escapes everywhere.
 */
export async function* renderMarkdown(view: SessionView): AsyncGenerator<string> {
  yield headerMarkdown(view.header);
  for await (const item of view.items) yield itemMarkdown(item);
  const stopped = view.stoppedBy();
  if (stopped) yield `> [!CAUTION]\n> **The session stops here.** ${markdownText(describeProblem(stopped))}\n\n`;
}

function headerMarkdown(header: ViewHeader): string {
  let md = `# ${markdownText(header.title ?? 'Untitled session')}\n\n`;
  const facts = headerFacts(header);
  for (const [name, value] of facts) md += `- **${name}:** ${inlineCode(value)}\n`;
  if (header.resume) md += `- **Resume:** ${inlineCode(header.resume)}\n`;
  md += '\n';
  for (const problem of header.damage)
    md += `> [!CAUTION]\n> **Reasonix would refuse this session.** ${markdownText(describeProblem(problem))}. What follows was read before it.\n\n`;
  return `${md}---\n\n`;
}

function itemMarkdown(item: ViewItem): string {
  switch (item.type) {
    case 'message': {
      if (item.role === 'system')
        return `<details><summary>System prompt</summary>\n\n${fencedBlock(cutText(item.text, LIMITS.markdownMessage).shown, 'text')}\n</details>\n\n`;
      let md = `### ${markdownText(roleLabel(item.role))} · ${formatClock(item.time)}${item.storedBytes !== null ? ` · ${formatBytes(item.bytes)}` : ''}\n\n`;
      const cut = cutText(item.text, LIMITS.markdownMessage);
      md += fencedBlock(cut.shown, 'text');
      return `${md}${cutNote(cut.moreLines, cut.bytes)}\n`;
    }
    case 'tool':
      return toolMarkdown(item.call);
    case 'compaction':
      return `**— Context compacted here: the model was sent a summary from now on —**\n\n${item.summary ? fencedBlock(cutText(item.summary, LIMITS.markdownOutput).shown, 'text') + '\n' : ''}`;
    case 'turn':
      return `**— ${turnNote(item.status)} —**\n\n`;
  }
}

function toolMarkdown(call: ToolCallView): string {
  const badges = toolBadges(call).map((badge) => badge.text);
  const summary = `${call.name}${call.target ? `: ${call.target}` : ''}${badges.length > 0 ? ` — ${badges.join(', ')}` : ''}`;
  let md = `<details><summary>${htmlBlockText(summary)}</summary>\n\n`;
  md += `Arguments:\n\n${fencedBlock(cutText(call.arguments || '(none)', LIMITS.markdownOutput).shown, 'json')}\n`;
  for (const edit of call.edits) {
    const diff = edit.lines
      .map((line) => `${line.kind === 'added' ? '+' : line.kind === 'removed' ? '-' : ' '}${line.text}`)
      .join('\n');
    const cut = cutText(diff, LIMITS.markdownOutput);
    md += `Change to ${inlineCode(edit.path || 'the file')}:\n\n${fencedBlock(cut.shown, 'diff')}${cutNote(cut.moreLines, 0)}\n`;
  }
  if (call.result) {
    const cut = cutText(call.result.text || '(no output)', LIMITS.markdownOutput);
    md += `Output${call.result.storedBytes !== null ? ` (${formatBytes(call.result.bytes)})` : ''}:\n\n${fencedBlock(cut.shown, 'text')}${cutNote(cut.moreLines, cut.bytes)}`;
  } else {
    md += '_No result was recorded for this call._\n';
  }
  return `${md}\n</details>\n\n`;
}

function cutNote(moreLines: number, bytes: number): string {
  return moreLines > 0
    ? `\n_… ${plural(moreLines, 'more line')} not shown${bytes > 0 ? ` (${formatBytes(bytes)} in all)` : ''}._\n`
    : '';
}
