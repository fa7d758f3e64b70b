// What a session is called is one answer (the session's own title, else the start of what the
// person first typed), whichever command a person asks: ls, where, inspect, view and export agree.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { runCliChild } from '../support/cli-child.js';
import { buildStateRoot } from '../support/sessions/state-root.js';

describe('every command calls a session what ls calls it', () => {
  let machine: Awaited<ReturnType<typeof buildStateRoot>>;
  let listed: ListedSession[];
  beforeAll(async () => {
    machine = await buildStateRoot();
    listed = JSON.parse(
      (await runCliChild(['ls', '--json', '--state-home', machine.stateRoot])).stdout,
    ) as ListedSession[];
  });

  // One test a session: each runs the five commands (seven runs), so a busy machine never puts all three in one budget.
  it.each(['plainChat', 'payloadRef', 'titledFork'] as const)(
    '%s in ls, where, inspect, view and export',
    async (name) => {
      const id = machine.ids[name];
      const session = listed.find((each) => each.id === id)!;
      expect(session.title, id).not.toBeNull();
      const args = [id, '--state-home', machine.stateRoot];
      const inspected = JSON.parse((await runCliChild(['inspect', ...args, '--json'])).stdout) as {
        title: string | null;
        titleFrom: string | null;
      };
      expect(inspected, id).toMatchObject({ title: session.title, titleFrom: session.titleFrom });
      const text = (await runCliChild(['inspect', ...args])).stdout;
      expect(text).toContain(
        `\ntitle        ${session.title}${session.titleFrom === 'preview' ? '  (its first message: no title of its own)' : ''}\n`,
      );
      expect((await runCliChild(['where', ...args])).stdout.split('\n')[0]).toBe(`${id}  ${session.title}`);
      const page = (await runCliChild(['view', ...args, '--format', 'html'])).stdout;
      expect(page).toContain(
        `<h1>${session.title!.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</h1>`,
      );
      expect(page).not.toContain('Untitled session');
      const exported = JSON.parse((await runCliChild(['export', ...args, '--to', '-', '--format', 'json'])).stdout) as {
        title: string | null;
        titleFrom: string | null;
      };
      expect(exported, id).toMatchObject({ title: session.title, titleFrom: session.titleFrom });
    },
  );

  it('two of them have no title of their own: the point of the test', () => {
    expect(
      listed
        .filter((each) => [machine.ids.plainChat, machine.ids.payloadRef].includes(each.id))
        .map((each) => each.titleFrom),
    ).toEqual(['preview', 'preview']);
  });
});
