// Data flows one way (ARCHITECTURE.md): no two rooms of src import each other, directly or through
// others. A room holding rooms (src/codec and src/codec/log-worker, src/cli and src/cli/run) is one
// family: its own files may drive the rooms it holds, which use its pieces; between families, and
// between rooms side by side (session/reading and session/replay), an import cycle fails this test.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

/** Every module specifier a file names: static imports and re-exports, `import type`, and dynamic `import()`. */
const specifiersOf = (source: string) =>
  [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.[^']+)'/g)].map((match) => match[1]!);

/** Whether one room holds the other (or they are the same). */
const related = (a: string, b: string) =>
  a === b || `${a}${sep}`.startsWith(`${b}${sep}`) || `${b}${sep}`.startsWith(`${a}${sep}`);

/** Room → the rooms it imports, each with one import that says so. */
async function roomImports(src: string): Promise<Map<string, Map<string, string>>> {
  const entries = await readdir(src, { withFileTypes: true, recursive: true });
  const graph = new Map<string, Map<string, string>>();
  for (const entry of entries.filter((each) => each.isFile() && each.name.endsWith('.ts'))) {
    const file = join(entry.parentPath, entry.name);
    const room = relative(src, entry.parentPath) || '.';
    for (const specifier of specifiersOf(await readFile(file, 'utf8'))) {
      const target = relative(src, dirname(resolve(entry.parentPath, specifier))) || '.';
      if (related(room, target)) continue;
      if (!graph.has(room)) graph.set(room, new Map());
      if (!graph.get(room)!.has(target)) graph.get(room)!.set(target, `${relative(src, file)} imports ${specifier}`);
    }
  }
  return graph;
}

/** The cycles of a graph: each strongly connected set of more than one room (Tarjan), with the imports that close it. */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (room: string) => {
    index.set(room, next);
    low.set(room, next);
    next += 1;
    stack.push(room);
    for (const target of graph.get(room)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(room, Math.min(low.get(room)!, low.get(target)!));
      } else if (stack.includes(target)) low.set(room, Math.min(low.get(room)!, index.get(target)!));
    }
    if (low.get(room) !== index.get(room)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      members.push(member);
    } while (member !== room);
    if (members.length > 1)
      found.push(
        members.flatMap((from) =>
          members.flatMap((to) => (graph.get(from)?.has(to) ? [graph.get(from)!.get(to)!] : [])),
        ),
      );
  };
  for (const room of graph.keys()) if (!index.has(room)) visit(room);
  return found;
}

describe('the rooms of src', () => {
  it('import one another one way only: no cycle between rooms', async () => {
    expect(cycles(await roomImports(join(repoRoot, 'src')))).toEqual([]);
  });

  it('sees a cycle when there is one (the check is not blind)', () => {
    const graph = new Map([
      ['session/reading', new Map([['session/replay', 'read-session.ts imports ../replay/projection.js']])],
      ['session/replay', new Map([['session/reading', 'inspect-report.ts imports ../reading/read-session.js']])],
      ['cli', new Map([['cli/run', 'main.ts imports ./run/ls.js']])],
    ]);
    expect(cycles(graph)).toHaveLength(1);
    expect(related('codec', 'codec/log-worker'.split('/').join(sep))).toBe(true);
    expect(related('codec', 'codec-x')).toBe(false);
  });
});
