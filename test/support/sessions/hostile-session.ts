import { createSession } from '../../../src/session/writing/create-session.js';
import { complete, messageId } from './sample-session.js';

/** Markup that runs code or fetches something if a page ever lets it through as markup. */
export const HOSTILE = {
  script: '<script>window.__pwned = "script"</script>',
  image: '<img src="x" onerror="window.__pwned = \'img\'; alert(1)">',
  svg: '<svg onload="window.__pwned = \'svg\'"></svg>',
  closing: '</pre></details></article></main><iframe src="javascript:window.top.__pwned=\'iframe\'"></iframe>',
  link: '[click me](javascript:window.__pwned="link") <a href="javascript:window.__pwned=1">a</a>',
  attribute: '" onmouseover="window.__pwned=\'attr\'" x="',
  style: '<style>body{background:url(https://example.invalid/track.png)}</style>',
  fence: '````\n</code></pre><script>window.__pwned="fence"</script>\n````',
};

const ALL = Object.values(HOSTILE).join('\n');

/**
 * A session whose title, workspace, messages, reasoning, tool names, tool arguments, file names and
 * tool outputs all hold hostile HTML.
 */
export async function writeHostileSession(storeDir: string): Promise<{ dir: string; id: string }> {
  const edit = 'call_hostile_edit';
  const shell = 'call_hostile_shell';
  const odd = 'call_hostile_tool';
  const created = await createSession({
    storeDir,
    batches: [
      {
        operationId: 'session-create',
        events: [
          complete({ role: 'system', id: messageId(), content: `System ${HOSTILE.script}` }),
          { kind: 'session/config', payload: { modelIdentity: HOSTILE.image, modelRef: HOSTILE.svg } },
        ],
      },
      {
        operationId: 'title',
        events: [{ kind: 'session/title', payload: { title: `</title>${HOSTILE.script}${HOSTILE.attribute}` } }],
      },
      {
        operationId: 'hostile-turn',
        turnId: 'turn_00000000000000000000000000000099',
        events: [
          { kind: 'turn/start', payload: { status: 'in_progress' } },
          complete({
            role: 'user',
            id: messageId(),
            origin: 'host',
            content: `<session-context>\nCurrent workspace: "/tmp/${HOSTILE.image.replaceAll('"', "'")}"\n</session-context>`,
          }),
          complete({
            role: 'user',
            id: messageId(),
            origin: 'user',
            content: `User says ${ALL}`,
            raw_content: `User says ${ALL}`,
            createdAt: 1767323045123,
          }),
          complete({
            role: 'assistant',
            id: messageId(),
            content: `Assistant answers ${ALL}`,
            reasoning_content: `Reasoning ${HOSTILE.script}`,
            tool_calls: [
              {
                id: edit,
                name: 'edit_file',
                arguments: JSON.stringify({
                  path: `src/${HOSTILE.image}.ts`,
                  old_string: HOSTILE.svg,
                  new_string: HOSTILE.closing,
                }),
              },
              { id: shell, name: 'bash', arguments: JSON.stringify({ command: `echo '${HOSTILE.script}'` }) },
              {
                id: odd,
                name: `<svg onload="window.__pwned='tool-name'">`,
                arguments: JSON.stringify({ query: HOSTILE.link }),
              },
            ],
          }),
          complete({
            role: 'tool',
            id: messageId(),
            tool_call_id: edit,
            name: 'edit_file',
            content: `edited ${HOSTILE.image}`,
          }),
          complete({
            role: 'tool',
            id: messageId(),
            tool_call_id: shell,
            name: 'bash',
            content: `${HOSTILE.script}\n${HOSTILE.style}`,
            tool_execution: { state: 'failed', exitCode: 3, durationMs: 12 },
          }),
          complete({
            role: 'tool',
            id: messageId(),
            tool_call_id: odd,
            name: `<svg onload="window.__pwned='tool-name'">`,
            content: ALL,
          }),
          complete({ role: 'assistant', id: messageId(), content: 'Done.' }),
          { kind: 'turn/end', payload: { status: 'completed' } },
        ],
      },
    ],
  });
  return { dir: created.dir, id: created.id };
}
