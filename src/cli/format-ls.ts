import stringWidth from 'string-width';
import { exitCodeOfStatus } from './exit-code-of-status.js';
import { EXIT } from './exit-codes.js';
import { printable, type ListedSession } from '../index.js';

export interface LsLayout {
  /** The terminal's width: rows are fitted to it. Undefined in a pipe: rows are whole. */
  columns: number | undefined;
  /** Times in UTC rather than the local time zone. */
  utc: boolean;
  /** The user's home folder, shown as `~` in workspaces. */
  homeDir: string;
}

const GAP = '  ';
const HEADER = ['UPDATED', 'STATUS', 'MSGS', 'ID', 'WORKSPACE', 'TITLE'] as const;
/** Narrowest a cut workspace gets: `…` and enough of its last folder to recognise. */
const MIN_WORKSPACE = 12;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `YYYY-MM-DD HH:MM` with its offset from UTC: `+02` (or `+05:30`) in local time, `Z` in UTC.
 * Each row carries its own offset, so times on either side of a daylight-saving change read right.
 */
export function shownTime(iso: string | null, utc: boolean): string {
  const time = iso === null ? Number.NaN : Date.parse(iso);
  if (!Number.isFinite(time)) return '-';
  const date = new Date(time);
  if (utc)
    return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}Z`;
  const offset = -date.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${Math.abs(offset) % 60 ? `:${pad(Math.abs(offset) % 60)}` : ''}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}${zone}`;
}

const graphemes = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((part) => part.segment);

/** `text` in at most `width` terminal cells, cut at the end with `…` (wide characters count two). */
export function cutEnd(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let kept = '';
  for (const part of graphemes(text)) {
    if (stringWidth(kept + part) > width - 1) break;
    kept += part;
  }
  return `${kept}…`;
}

/** `text` in at most `width` cells, cut at the start with `…`: the end of a path says the most. */
export function cutStart(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let kept = '';
  for (const part of graphemes(text).reverse()) {
    if (stringWidth(part + kept) > width - 1) break;
    kept = part + kept;
  }
  return `…${kept}`;
}

const padCells = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - stringWidth(text)));

/** The store a row is in, when it is not the workspace's own sessions-v4 store. */
function storeNote(session: ListedSession): string | undefined {
  if (session.store === 'sessions-v4') return session.scope === 'global' ? 'global sessions-v4' : undefined;
  return session.store;
}

/** What follows a title: the store, other copies, the parent, and why Reasonix would refuse it. */
function notes(session: ListedSession): string {
  const refused = exitCodeOfStatus(session.status) === EXIT.refused;
  const parts = [
    storeNote(session),
    session.copies.length > 1
      ? `+${session.copies.length - 1} ${session.copies.length === 2 ? 'copy' : 'copies'}`
      : undefined,
    session.parent ? `fork of ${session.parent.id}` : undefined,
    (refused || session.status === 'turn-refused') && session.problem ? session.problem : undefined,
    // Damaged, yet Reasonix opens it from its recovery checkpoint, past the damage: `where` says the rest.
    refused && session.goesOnFrom ? 'Reasonix goes on with it from its recovery checkpoint' : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? `(${parts.join('; ')})` : '';
}

function workspaceText(session: ListedSession, homeDir: string): string {
  const { workspace } = session;
  if (workspace === null) return session.slug ? `slug ${session.slug}` : '-';
  // A folder that no longer exists is marked: `ls` then says the command that brings its sessions back.
  const gone = session.relocate === null ? '' : ' (gone)';
  if (homeDir && (workspace === homeDir || workspace.startsWith(`${homeDir}/`)))
    return `~${workspace.slice(homeDir.length)}${gone}`;
  return `${workspace}${gone}`;
}

/** Shortest an id is shown: as long as git's short hashes, and never ambiguous among the listed ones. */
const MIN_ID = 8;
/** Narrowest a title is cut to before ids are shortened instead. */
const MIN_TITLE = 24;

/** Each id cut to the shortest start (at least 8 characters) that no other listed id begins with: every command takes it. */
function shortIds(sessions: readonly ListedSession[]): Map<string, string> {
  const all = [...new Set(sessions.flatMap((session) => session.copies.map((copy) => copy.id)))];
  return new Map(
    sessions.map((session) => {
      let length = Math.min(MIN_ID, session.id.length);
      while (
        length < session.id.length &&
        all.some((other) => other !== session.id && other.startsWith(session.id.slice(0, length)))
      )
        length += 1;
      return [session.id, session.id.slice(0, length)];
    }),
  );
}

/** Columns given up, in this order, on a terminal too narrow for the title: the id and the title are kept. */
const DROPPED_FIRST = [4, 2, 0, 1] as const;
/** Narrowest a title is cut to before a column is given up for it: a cut to nothing shows nothing. */
const MIN_TITLE_SHOWN = 12;

/**
 * `rxstore ls` as text: a header, then a row a conversation. In a pipe every row is whole. On a
 * terminal each row fits its width: the workspace is cut at the start and the title at the end,
 * each with `…`; on a narrow one ids are shortened to a prefix no other listed id shares (one every
 * command takes, never with `…`), and on a narrower one the workspace, then the message count, the
 * time and the status are left out rather than the title cut to nothing.
 * Text from sessions has its control characters escaped.
 */
export function formatLs(sessions: readonly ListedSession[], layout: LsLayout): string {
  const full = table(sessions, layout, undefined, new Set());
  if (layout.columns === undefined || full.titleWidth >= Math.min(MIN_TITLE, full.titleNeeded)) return full.text;
  const ids = shortIds(sessions);
  const dropped = new Set<number>();
  let shown = table(sessions, layout, ids, dropped);
  for (const column of DROPPED_FIRST) {
    if (shown.titleWidth >= Math.min(MIN_TITLE_SHOWN, shown.titleNeeded)) break;
    dropped.add(column);
    shown = table(sessions, layout, ids, dropped);
  }
  return shown.text;
}

function table(
  sessions: readonly ListedSession[],
  layout: LsLayout,
  ids: Map<string, string> | undefined,
  dropped: ReadonlySet<number>,
) {
  const rows = sessions.map((session) => {
    const title = [session.title === null ? '' : printable(session.title), printable(notes(session))]
      .filter(Boolean)
      .join('  ');
    const id = ids?.get(session.id) ?? session.id;
    return [
      shownTime(session.updatedAt, layout.utc),
      session.status,
      String(session.messages),
      printable(id),
      printable(workspaceText(session, layout.homeDir)),
      title,
    ];
  });
  const all = [[...HEADER], ...rows];
  const widths = HEADER.map((_, column) =>
    dropped.has(column) ? 0 : Math.max(...all.map((row) => stringWidth(row[column]!))),
  );
  const fixed = widths
    .slice(0, 4)
    .reduce((sum, width, column) => sum + (dropped.has(column) ? 0 : width + GAP.length), 0);
  let workspaceWidth = widths[4]!;
  let titleWidth = widths[5]!;
  if (layout.columns !== undefined) {
    const room = layout.columns - fixed - (dropped.has(4) ? 0 : GAP.length);
    if (workspaceWidth + titleWidth > room) {
      if (!dropped.has(4)) workspaceWidth = Math.min(workspaceWidth, Math.max(MIN_WORKSPACE, Math.floor(room * 0.4)));
      titleWidth = Math.max(1, room - workspaceWidth);
    }
  }
  const lines = all.map((row) => {
    const cells = [
      padCells(row[0]!, widths[0]!),
      padCells(row[1]!, widths[1]!),
      row[2]!.padStart(widths[2]!),
      padCells(row[3]!, widths[3]!),
      padCells(cutStart(row[4]!, workspaceWidth), workspaceWidth),
      cutEnd(row[5]!, titleWidth),
    ].filter((_, column) => !dropped.has(column));
    const line = cells.join(GAP).trimEnd();
    // Columns that do not fit even before the title (a very narrow terminal): the row is cut, never wrapped.
    return layout.columns === undefined ? line : cutEnd(line, layout.columns);
  });
  return { text: `${lines.join('\n')}\n`, titleWidth, titleNeeded: widths[5]! };
}
