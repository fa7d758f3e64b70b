// `rxstore view`: a session as HTML or Markdown, and `view --all` as a static site (the browser checks are in view-browser.test.ts).
import { cp, readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLogSession, openSession } from '../../src/store/open-session.js';
import { cutText, formatBytes } from '../../src/view/cut-text.js';
import { diffLines } from '../../src/site/edit-diff.js';
import { fencedBlock, inlineCode } from '../../src/view/markdown-fence.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { FENCE_LINES, FENCE_MESSAGES, writeFenceSession } from '../support/sessions/fence-session.js';
import { HOSTILE, writeHostileSession } from '../support/sessions/hostile-session.js';
import { runCli } from '../support/inspect-json-schema.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../support/reasonix/reasonix.js';
import { buildStateRoot } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';

/** The blocks CommonMark reads out of Markdown: a fence opens with 3+ backticks and closes at the first run at least as long. */
function fencedBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const lines = markdown.split('\n');
  for (let at = 0; at < lines.length; at += 1) {
    const open = /^(`{3,})[^`]*$/.exec(lines[at]!);
    if (!open) continue;
    const body: string[] = [];
    let end = at + 1;
    while (end < lines.length && !new RegExp(`^\`{${open[1]!.length},}\\s*$`).test(lines[end]!))
      body.push(lines[end++]!);
    blocks.push(body.join('\n'));
    at = end;
  }
  return blocks;
}

describe('Markdown fences', () => {
  it('a fenced block holds any text whole: backtick runs inside never close it', () => {
    const texts = [
      'plain',
      '```\nclosing fence inside\n```',
      '````````` nine',
      'a `code` span and ``` three',
      '```',
      '',
    ];
    for (const text of texts) {
      const blocks = fencedBlocks(`before\n\n${fencedBlock(text)}\nafter\n`);
      expect(blocks).toEqual([text]);
    }
  });

  it('an inline code span is closed only by its own run of backticks', () => {
    expect(inlineCode('a ` b')).toBe('`` a ` b ``'.replace('`` a', '``a').replace('b ``', 'b``'));
    expect(inlineCode('`x`')).toBe('`` `x` ``');
    expect(inlineCode('two\nlines')).toBe('`two lines`');
  });

  it('control characters from a session are written as escapes, never raw: Markdown is read in terminals too', async () => {
    expect(fencedBlock('\u001b[31mred\u001b[0m\ttab\u202eflip')).toBe(
      '```text\n\\x1b[31mred\\x1b[0m\ttab\\u202eflip\n```\n',
    );
    const dir = await tempDir();
    const file = join(dir, 'colours.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ role: 'user', content: 'make it \u001b[31mred\u001b[0m' })}\n${JSON.stringify({ role: 'assistant', content: 'done \u001b[1mbold' })}\n`,
    );
    const { code, stdout } = await runCli(['view', file, '--format', 'md']);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
    expect(stdout).toContain('\\x1b[31mred');
  });
});

describe('cutting long text', () => {
  it('keeps whole lines within the limits and counts what was left out', () => {
    const text = Array.from({ length: 1000 }, (_, line) => `line ${line}`).join('\n');
    const cut = cutText(text, { lines: 10, chars: 10_000 });
    expect(cut.shown).toBe(`${Array.from({ length: 10 }, (_, line) => `line ${line}`).join('\n')}\n`);
    expect(cut.totalLines).toBe(1000);
    expect(cut.moreLines).toBe(990);
    expect(cutText('short\n', { lines: 10, chars: 100 })).toMatchObject({ shown: 'short\n', moreLines: 0 });
  });

  it('cuts one line longer than the budget without splitting an emoji', () => {
    const cut = cutText(`${'a'.repeat(9)}🚀${'b'.repeat(100)}`, { lines: 10, chars: 10 });
    expect(cut.shown).toBe('a'.repeat(9));
    expect(cut.moreLines).toBe(1);
  });
});

describe('edit diffs', () => {
  it('shows the replaced and the new span line by line, with shared lines as context', () => {
    expect(diffLines('alpha\nbeta\ngamma\n', 'alpha\nBETA\ngamma\n')).toEqual([
      { kind: 'same', text: 'alpha' },
      { kind: 'removed', text: 'beta' },
      { kind: 'added', text: 'BETA' },
      { kind: 'same', text: 'gamma' },
    ]);
    expect(diffLines('', 'new file\n')).toEqual([{ kind: 'added', text: 'new file' }]);
  });
});

describe.skipIf(!reasonixBinary())(
  reasonixTitle('rxstore view of a session the real Reasonix writes in the test'),
  () => {
    it('a turn with a shell command, resumed just now: the page holds the new prompt, the command with its exit code, and the answer', async () => {
      const source = fixture('tool-calls');
      const resumed = await resumeWithReasonix(source.dir, {
        workspace: source.workspace,
        prompt: 'Count the lines of notes.txt.',
        mock: [
          {
            text: 'Counting.',
            toolCalls: [{ id: 'call_wc', name: 'bash', arguments: { command: 'echo 3 notes.txt' } }],
          },
          { text: 'It has 3 lines.' },
        ],
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      const md = await runCli(['view', resumed.sessionDir, '--format', 'md']);
      expect(md.code, md.stderr).toBe(0);
      for (const text of ['Count the lines of notes.txt.', 'echo 3 notes.txt', 'It has 3 lines.'])
        expect(md.stdout).toContain(text);
      const html = await runCli(['view', resumed.sessionDir]);
      expect(html.code, html.stderr).toBe(0);
      expect(html.stdout).toContain('It has 3 lines.');
    });
  },
);

describe('rxstore view of every fixture the real Reasonix wrote', () => {
  for (const name of FIXTURE_NAMES) {
    it(`${name}: HTML and Markdown hold every message of the person's view`, async () => {
      const { dir } = fixture(name);
      const session = await openSession(dir);
      const people = [];
      for await (const message of session.personView()) people.push(message);
      const out = await tempDir('rxstore-view-');
      const html = await runCli(['view', dir, '--to', join(out, 'page.html')]);
      expect(html.code, html.stderr).toBe(0);
      expect(html.stdout).toMatch(
        new RegExp(
          `^wrote ${join(out, 'page.html').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: an HTML page of \\d+ messages?\n$`,
        ),
      );
      const page = await readFile(join(out, 'page.html'), 'utf8');
      expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
      // Self-contained: no URL to fetch anywhere in the page.
      expect(page).not.toMatch(/\b(?:src|href)=|url\(|@import/);
      const md = await runCli(['view', dir, '--format', 'md']);
      expect(md.code, md.stderr).toBe(0);
      const blocks = fencedBlocks(md.stdout);
      for (const message of people) {
        const firstLine = message.content.split('\n').find((line) => line.trim() !== '');
        if (firstLine === undefined) continue;
        // A line longer than a page shows at once is cut inside: its start is what must be there.
        expect(page, `${message.role} message in HTML`).toContain(escape(firstLine.slice(0, 300)));
        expect(
          blocks.some((block) => block.includes(firstLine)),
          `${message.role} message in Markdown`,
        ).toBe(true);
      }
      const toolCalls = people.flatMap((message) => message.toolCalls ?? []);
      expect(page.match(/<details class="tool"[ >]/g)?.length ?? 0).toBe(toolCalls.length);
      // Every message a search hit can name has its anchor.
      for (const message of people)
        if (message.id !== undefined && message.role !== 'system')
          expect(page, `anchor of ${message.id}`).toContain(`id="m-${escape(message.id)}"`);
      expect(md.stdout.match(/^<details><summary>(?!System prompt)/gm)?.length ?? 0).toBe(toolCalls.length);
    });
  }

  it('tool calls show their exit code and duration; the failing one is marked; edits are diffs', async () => {
    const { dir, root } = fixture('tool-calls');
    const { stdout, code } = await runCli(['view', dir]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /<span class="name mono">bash<\/span><span class="target mono">echo listing &amp;&amp; ls<\/span><span class="badge ok">exit 0<\/span><span class="badge plain">13 ms<\/span>/,
    );
    expect(stdout).toMatch(/<span class="target mono">ls missing-dir<\/span><span class="badge fail">exit 2<\/span>/);
    expect(stdout).toContain('<span class="del">-beta</span><span class="add">+BETA</span>');
    // Under a state root Reasonix does not use here: the command names it, as `where --state-home` would.
    expect(stdout).toContain(
      `<code>cd /tmp/rxstore-fixture-ws/tool-calls &amp;&amp; REASONIX_STATE_HOME=${root} reasonix --resume 1083b7d00d4a95855b15212dd9c840c6</code>`,
    );
  });

  it('marks the interrupted and failed turns, and the compaction point with its summary', async () => {
    const interrupted = await runCli(['view', fixture('interrupted').dir, '--format', 'md']);
    expect(interrupted.stdout.match(/\*\*— Turn (failed|interrupted) —\*\*/g)).toEqual([
      '**— Turn failed —**',
      '**— Turn interrupted —**',
    ]);
    const compacted = await runCli(['view', fixture('compacted').dir]);
    const marker = compacted.stdout.indexOf('Context compacted here');
    // Reasonix compacts after the sixth question is written, before the model is asked it.
    expect(marker).toBeGreaterThan(compacted.stdout.indexOf('Turn 6:'));
    expect(marker).toBeLessThan(compacted.stdout.indexOf('Answer 6:'));
    expect(compacted.stdout).toContain('Summary of earlier conversation');
  });

  it('a payloadRef output is shown with its size, its start visible and the rest behind a fold', async () => {
    const { stdout } = await runCli(['view', fixture('payload-ref').dir]);
    expect(stdout).toMatch(/<span class="badge plain">\d+\.\d KB · content store<\/span>/);
    expect(stdout).toMatch(
      /<details class="more"><summary><span class="if-closed">Show [\d,]+ more lines \(\d+\.\d KB in all\)<\/span><span class="if-open">Show less<\/span><\/summary>/,
    );
    expect(stdout).toMatch(
      /<h3>Output · \d+\.\d KB of text, kept in the content store as a \d+\.\d KB JSON payload<\/h3>/,
    );
  });

  it('a stored output has one size wherever the page gives it: its text, in UTF-8 bytes', async () => {
    const { dir } = fixture('payload-ref');
    const people = [];
    for await (const message of (await openSession(dir)).personView()) people.push(message);
    const output = people.find((message) => message.role === 'tool')!.content;
    const size = formatBytes(Buffer.byteLength(output));
    const { stdout } = await runCli(['view', dir]);
    const opening = stdout.search(/<details class="tool"[ >]/);
    const tool = stdout.slice(opening, stdout.indexOf('</details>', opening));
    const sizes = [...tool.matchAll(/(\d+(?:\.\d)? [KM]?B)(?! JSON payload)/g)].map((match) => match[1]);
    // The summary's badge, the output's heading and the note under the cut text.
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(sizes)).toEqual(new Set([size]));
    // The stored payload is bigger (JSON escapes, the message's other fields) and is named for what it is.
    const stored = /as a (\d+\.\d KB) JSON payload/.exec(tool)![1]!;
    expect(stored).not.toBe(size);
  });

  it('a damaged session is rendered up to the damage, with a banner saying where and why, and exits 1', async () => {
    const copy = join(await tempDir('rxstore-damaged-'), 'sessions-v4', fixture('tool-calls').id);
    await cp(fixture('tool-calls').dir, copy, { recursive: true });
    const batches = [];
    for await (const batch of (await openLogSession(copy)).events()) batches.push(batch.batch);
    const last = batches.at(-1)!;
    // One byte flipped inside the last batch's first frame: everything before it still verifies.
    const log = join(copy, 'events.frames');
    const bytes = await readFile(log);
    bytes[last.offset + 14] = bytes[last.offset + 14]! ^ 0xff;
    await writeFile(log, bytes);

    const result = await runCli(['view', copy]);
    expect(result.code).toBe(1);
    // The one line every command prints for this damage: the code, the log and offset, then what is wrong.
    expect(result.stderr).toMatch(
      new RegExp(`^rxstore: RX_\\w+: ${log.replaceAll('/', '\\/')} at offset ${last.offset}: .+\n$`),
    );
    expect(result.stderr).toBe((await runCli(['cat', copy])).stderr);
    const page = result.stdout;
    expect(page).toContain('Reasonix would refuse this session.');
    expect(page).toContain('List the files in this workspace.');
    expect(page).toContain('capitalise beta');
    expect(page.indexOf('The session stops here.')).toBeGreaterThan(page.indexOf('capitalise beta'));
    expect(page.trimEnd().endsWith('</html>')).toBe(true);
    const md = await runCli(['view', copy, '--format', 'md']);
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('**The session stops here.**');
  });
});

describe('what a page must not lose', () => {
  it('text after a fence on its opening line is on the page, as in the Markdown', async () => {
    const { dir } = await writeFenceSession(join(await tempDir('rxstore-fences-'), 'sessions-v4'));
    const html = await runCli(['view', dir]);
    expect(html.code, html.stderr).toBe(0);
    for (const line of FENCE_LINES) expect(html.stdout).toContain(escape(line));
    const md = await runCli(['view', dir, '--format', 'md']);
    for (const text of FENCE_MESSAGES) expect(fencedBlocks(md.stdout)).toContain(text);
  });

  it('an empty transcript is not a session: the one line and the exit code of every reader of it, and no page', async () => {
    const dir = await tempDir('rxstore-empty-');
    const file = join(dir, 'empty.jsonl');
    await writeFile(file, '');
    const inspect = await runCli(['inspect', file, '--messages']);
    const cat = await runCli(['cat', file]);
    expect(inspect.code).toBe(2);
    expect(inspect.stderr).toBe(
      `rxstore: RX_JSONL_EMPTY: ${file} at offset 0: empty transcript: Reasonix does not list it (no session matches)\n`,
    );
    expect(cat).toEqual(inspect);
    for (const args of [
      ['inspect', file],
      ['inspect', file, '--json'],
      ['export', file, '--to', '-'],
    ])
      expect(await runCli(args), args.join(' ')).toEqual(inspect);
    for (const format of ['html', 'md']) {
      const view = await runCli(['view', file, '--format', format]);
      expect(view).toEqual({ code: 2, stdout: '', stderr: inspect.stderr });
    }
    const page = join(dir, 'page.html');
    expect(await runCli(['view', file, '--to', page])).toEqual({ code: 2, stdout: '', stderr: inspect.stderr });
    await expect(stat(page)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('hostile text', () => {
  it('every text is escaped in HTML, and no fence or span in Markdown can be broken out of', async () => {
    const store = join(await tempDir('rxstore-hostile-'), 'sessions-v4');
    const { dir } = await writeHostileSession(store);
    const html = await runCli(['view', dir]);
    expect(html.code, html.stderr).toBe(0);
    const page = html.stdout;
    // The page's own markup only: one script, one style, no element or attribute from the session.
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page.match(/<style>/g)).toHaveLength(1);
    expect(page).not.toMatch(/<(img|svg|iframe|a)\b/i);
    expect(page).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    for (const text of Object.values(HOSTILE)) expect(page).toContain(escape(text.split('\n')[0]!));
    const md = await runCli(['view', dir, '--format', 'md']);
    const blocks = fencedBlocks(md.stdout);
    // The user's message, with its own ```` fence, comes back whole from one block.
    expect(blocks).toContain(`User says ${Object.values(HOSTILE).join('\n')}`);
    // What CommonMark reads as markup: lines outside fenced blocks, without their inline code spans.
    const outside = md.stdout
      .split('\n')
      .filter((_, index, lines) => !insideFence(lines, index))
      .map((line) => line.replace(/(`+)(.*?[^`])\1(?!`)/g, ''))
      .join('\n');
    // Outside fences, a `<` from the session is always backslash-escaped (CommonMark: a literal `<`).
    expect(outside).not.toMatch(/(?<!\\)<(script|img|svg|iframe|style)\b/i);
  });
});

describe('rxstore view --all', () => {
  it('writes an index of every session grouped by workspace and a page per session; a re-run rewrites only what changed', async () => {
    const machine = await buildStateRoot();
    const site = await tempDir('rxstore-site-');
    const first = await runCli(['view', '--all', '--to', site, '--state-home', machine.stateRoot]);
    // The damaged session on this machine is rendered up to its damage, and named.
    expect(first.code).toBe(1);
    // Said as every command says a refusal: the code, then where (the session's path), then what.
    expect(first.stderr).toMatch(new RegExp(`^rxstore: RX_\\w+: [^\\n]*/${machine.ids.damaged}\\b`, 'm'));
    const listed = JSON.parse((await runCli(['ls', '--json', '--state-home', machine.stateRoot])).stdout) as {
      id: string;
      workspace: string | null;
      title: string | null;
    }[];
    expect(first.stdout).toBe(
      `${join(site, 'index.html')}: ${listed.length} sessions, ${listed.length} pages written, 0 unchanged, 0 removed\n`,
    );
    const pages = (await readdir(join(site, 'sessions'))).sort();
    expect(pages).toEqual(listed.map((session) => `${session.id}.html`).sort());
    const index = await readFile(join(site, 'index.html'), 'utf8');
    for (const session of listed) expect(index).toContain(`<a href="sessions/${session.id}.html">`);
    const workspaces = [...index.matchAll(/<h2 class="mono">([^<]*)<\/h2>/g)].map((match) => match[1]);
    expect(new Set(workspaces).size).toBe(workspaces.length);
    expect(workspaces).toContain('/tmp/rxstore-fixture-ws/tool-calls');

    const before = await Promise.all(pages.map(async (page) => (await stat(join(site, 'sessions', page))).mtimeMs));
    const again = await runCli(['view', '--all', '--to', site, '--state-home', machine.stateRoot]);
    expect(again.stdout).toBe(
      `${join(site, 'index.html')}: ${listed.length} sessions, 0 pages written, ${listed.length} unchanged, 0 removed\n`,
    );
    expect(again.code).toBe(1);

    // One session changes on disk (here: its log's time); only its page is written again.
    const titled = machine.ids.titledFork;
    const titledPath = listed.find((session) => session.id === titled) as unknown as { path: string };
    const log = join(titledPath.path, 'events.frames');
    const later = new Date(Date.now() + 60_000);
    await utimes(log, later, later);
    const third = await runCli(['view', '--all', '--to', site, '--state-home', machine.stateRoot]);
    expect(third.stdout).toBe(
      `${join(site, 'index.html')}: ${listed.length} sessions, 1 page written, ${listed.length - 1} unchanged, 0 removed\n`,
    );
    const after = await Promise.all(pages.map(async (page) => (await stat(join(site, 'sessions', page))).mtimeMs));
    expect(pages.filter((_, at) => after[at] !== before[at])).toEqual([`${titled}.html`]);
  });

  it('refuses --all without a folder, and a session with --all, as usage errors', async () => {
    expect((await runCli(['view', '--all'])).code).toBe(2);
    expect((await runCli(['view', '--all', '--to', '-'])).code).toBe(2);
    expect((await runCli(['view', 'x', '--all', '--to', '/tmp/x'])).code).toBe(2);
    expect((await runCli(['view'])).code).toBe(2);
  });
});

function escape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!,
  );
}

/** Whether line `index` lies inside a fenced block (CommonMark's rule, as `fencedBlocks`). */
function insideFence(lines: string[], index: number): boolean {
  let open: number | undefined;
  for (let at = 0; at <= index; at += 1) {
    const line = lines[at]!;
    if (open === undefined) {
      const start = /^(`{3,})[^`]*$/.exec(line);
      if (start) open = start[1]!.length;
    } else if (new RegExp(`^\`{${open},}\\s*$`).test(line)) {
      if (at === index) return true;
      open = undefined;
    }
  }
  return open !== undefined;
}
