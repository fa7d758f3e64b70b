import type { Problem, ToolCallView, ViewHeader } from '../index.js';

/** How much of a text each kind of block shows (the page stays usable on a session of any size). */
export const LIMITS = {
  /** A message shown whole up to here; past it the rest is cut with a note. */
  message: { lines: 2000, chars: 200_000 },
  /** A long or stored message shows its start, the rest behind a fold. */
  messageHead: { lines: 30, chars: 6_000 },
  /** The system prompt is the same in every session: its first lines say which one it is. */
  systemHead: { lines: 3, chars: 600 },
  toolArguments: { lines: 200, chars: 40_000 },
  toolOutput: { lines: 400, chars: 80_000 },
  diff: { lines: 400, chars: 80_000 },
  markdownMessage: { lines: 400, chars: 40_000 },
  markdownOutput: { lines: 60, chars: 8_000 },
} as const;

/** `2026-11-30 06:48:49 UTC` */
export function formatTime(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—';
}

/** `06:48:49` */
export function formatClock(iso: string | null): string {
  return iso ? iso.slice(11, 19) : '';
}

/** `27 ms`, `1.4 s`, `3 min 5 s` */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** `3 from the user, 7 from the assistant, 5 tool calls (16 messages in all)` */
/** The facts a page's header lists, in order, as label and text: the same in HTML and Markdown. */
export function headerFacts(header: ViewHeader): [string, string][] {
  return [
    ['Workspace', header.workspace ?? '—'],
    ['Store', header.store],
    ['Session', header.id],
    ['Started', formatTime(header.startedAt)],
    ['Updated', formatTime(header.updatedAt)],
    ['Model', header.model ?? '—'],
    ['Messages', describeCounts(header.counts)],
    [
      'Turns',
      `${header.counts.turns}${header.counts.compactions > 0 ? ` · ${plural(header.counts.compactions, 'compaction')}` : ''}`,
    ],
    ['Status', header.status],
  ];
}

export function describeCounts(counts: ViewHeader['counts']): string {
  return `${counts.user} from the user, ${counts.assistant} from the assistant, ${plural(counts.toolCalls, 'tool call')} (${plural(counts.messages, 'message')} in all)`;
}

/** The badges of a tool call's summary line: exit code or state, and duration. */
export function toolBadges(call: ToolCallView): { text: string; tone: 'ok' | 'fail' | 'warn' | 'plain' }[] {
  const result = call.result;
  if (!result) return [{ text: 'no result', tone: 'warn' }];
  const badges: { text: string; tone: 'ok' | 'fail' | 'warn' | 'plain' }[] = [];
  if (result.exitCode !== undefined)
    badges.push({ text: `exit ${result.exitCode}`, tone: result.exitCode === 0 ? 'ok' : 'fail' });
  else if (result.failed) badges.push({ text: result.state ?? 'failed', tone: 'fail' });
  else if (result.state !== undefined && result.state !== 'completed')
    badges.push({ text: result.state, tone: 'warn' });
  if (result.durationMs !== undefined) badges.push({ text: formatDuration(result.durationMs), tone: 'plain' });
  return badges;
}

/** How a turn that did not complete is marked. */
export function turnNote(status: string): string {
  if (status === 'in_progress') return 'Turn unfinished: the session ends inside it';
  if (status === 'interrupted') return 'Turn interrupted';
  if (status === 'failed') return 'Turn failed';
  return `Turn ended: ${status}`;
}

/** One line for a problem: code, what, where. */
export function describeProblem(problem: Problem): string {
  const { file, offset, line } = problem.data;
  const where = [
    file,
    offset !== undefined ? `offset ${offset}` : undefined,
    line !== undefined ? `line ${line}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return `${problem.code}: ${problem.message}${where ? ` (${where})` : ''}`;
}

export function roleLabel(role: string): string {
  if (role === 'user') return 'User';
  if (role === 'assistant') return 'Assistant';
  if (role === 'system') return 'System prompt';
  return role;
}
