import type { AgentBehavior } from '../../../../src'
import type { FileKnobs } from '../../../../src/knobs/file-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { createSession } from '../../../../src/session'
import { scriptedProvider } from '../../../../src/testing'
import { edit, readFile, shell, writeFile } from '../../../../src/tools'

const FIVE_LINES = 'line one\nline two\nline three\nline four\nline five\n'

/** Run the file tools (and `shell`) over one scripted model in a fresh directory holding `a.txt`; returns every tool result and the file afterwards. */
async function fileRun(behavior: AgentBehavior, calls: ScriptedTurn['toolCalls'][]) {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-knobs-files-'))
  writeFileSync(join(dir, 'a.txt'), FIVE_LINES)
  const provider = scriptedProvider([...calls.map(toolCalls => ({ toolCalls })), { text: 'done' }])
  const results: string[] = []
  const agent = createAgent({
    provider,
    tools: { read_file: readFile, write_file: writeFile, edit, shell },
    execution: createProcessContext({ cwd: dir }),
    session: await createSession(),
    behavior,
    hooks: { 'tool:after': ctx => void results.push(String(ctx.result)) },
  })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  return { results, file: readFileSync(join(dir, 'a.txt'), 'utf8') }
}

const read = (input: Record<string, unknown> = {}) => [{ name: 'read_file', input: { path: 'a.txt', ...input } }]
const editA = [{ name: 'edit', input: { path: 'a.txt', old_string: 'line two', new_string: 'line 2' } }]
const edited = (file: string) => file.includes('line 2')
const writeA = [{ name: 'write_file', input: { path: 'a.txt', content: 'replaced\n' } }]

export const fileScenarios: SliceScenarios<FileKnobs> = {
  readLineNumbers: {
    value: false,
    outcome: async behavior => (await fileRun(behavior, [read()])).results[0].startsWith('line one'),
    unset: false,
    set: true,
  },
  readFileDefaults: {
    value: { limit: 2 },
    outcome: async behavior => (await fileRun(behavior, [read()])).results[0].includes('line three'),
    unset: true,
    set: false,
    fields: {
      limit: { value: 2, unset: true, set: false },
      maxBytes: { value: 24, unset: true, set: false },
    },
  },
  dedupReads: {
    value: false,
    outcome: async behavior => (await fileRun(behavior, [read(), read()])).results[1].includes('line three'),
    unset: false,
    set: true,
  },
  requireReadBeforeEdit: {
    value: true,
    outcome: async behavior => edited((await fileRun(behavior, [editA])).file),
    unset: true,
    set: false,
  },
  trackShellReads: {
    value: false,
    outcome: async behavior => edited((await fileRun({ requireReadBeforeEdit: true, ...behavior }, [[{ name: 'shell', input: { command: 'cat a.txt' } }], editA])).file),
    unset: true,
    set: false,
  },
  writeFileExistingPolicy: {
    value: 'block-with-edit-recipe',
    outcome: async behavior => (await fileRun(behavior, [writeA])).file,
    unset: 'replaced\n',
    set: FIVE_LINES,
    fields: {
      mode: { value: 'block-with-edit-recipe', unset: 'replaced\n', set: FIVE_LINES },
      // Each list is checked against a mode it overrides: allowPaths under a blocking mode, denyPaths under 'allow'.
      allowPaths: {
        value: ['*.txt'],
        outcome: async behavior => (await fileRun({ writeFileExistingPolicy: { mode: 'block-with-edit-recipe', ...(behavior.writeFileExistingPolicy as object) } }, [writeA])).file,
        unset: FIVE_LINES,
        set: 'replaced\n',
      },
      denyPaths: {
        value: ['a.txt'],
        outcome: async behavior => (await fileRun({ writeFileExistingPolicy: { mode: 'allow', allowPaths: ['*.txt'], ...(behavior.writeFileExistingPolicy as object) } }, [writeA])).file,
        unset: 'replaced\n',
        set: FIVE_LINES,
      },
    },
  },
}
