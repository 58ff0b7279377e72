/**
 * The `basic` preset end to end: a scripted model explores a small project,
 * runs its test through `shell` (a real `node` process), reads the failing
 * code, fixes it with `edit` by pasting a numbered line back from `read_file`,
 * and re-runs the test. Everything happens in a temp dir through a real
 * process context; the model's later turns are built from the tool results
 * it received, as a real model's would be.
 */

import type { StreamOptions } from '../../src/providers/types'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/agent/create-agent'
import { createProcessContext } from '../../src/contexts/process'
import { basic } from '../../src/presets'
import { createSession } from '../../src/session/session'
import { scriptedProvider } from '../../src/testing'

const dir = mkdtempSync(join(tmpdir(), 'zidane-basic-preset-'))
const execution = createProcessContext({ cwd: dir })
afterAll(async () => {
  await execution.destroy()
  rmSync(dir, { recursive: true, force: true })
})

const BUGGY = [
  'export function sum(values) {',
  '  let total = 0',
  '  for (let i = 1; i < values.length; i++)',
  '    total += values[i]',
  '  return total',
  '}',
  '',
].join('\n')

const TEST = [
  'import assert from \'node:assert/strict\'',
  'import { sum } from \'./src/sum.js\'',
  '',
  'assert.equal(sum([1, 2, 3]), 6)',
  'assert.equal(sum([]), 0)',
  'console.log(\'all tests passed\')',
  '',
].join('\n')

function setUpProject() {
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'src/sum.js'), BUGGY)
  writeFileSync(join(dir, 'test.js'), TEST)
}

/** The text of the last tool result the model received. */
function lastToolOutput(request: StreamOptions): string {
  const last = request.messages.at(-1)
  const block = last?.content.find(item => item.type === 'tool_result')
  if (!block || block.type !== 'tool_result' || typeof block.output !== 'string')
    throw new Error('expected a text tool result')
  return block.output
}

describe('basic preset scenario', () => {
  it('reads, tests, edits and fixes a small project', async () => {
    setUpProject()
    const shellResults: string[] = []
    const provider = scriptedProvider([
      { text: 'Let me look at the project.', toolCalls: [{ name: 'list_files', input: {} }] },
      { toolCalls: [{ name: 'shell', input: { command: 'node test.js' } }] },
      {
        respond: (request) => {
          shellResults.push(lastToolOutput(request))
          return { toolCalls: [{ name: 'read_file', input: { path: 'src/sum.js' } }] }
        },
      },
      {
        // Paste the numbered loop line back, as models do; the edit tool strips the prefix.
        respond: (request) => {
          const loop = lastToolOutput(request).split('\n').find(line => line.includes('let i = 1'))
          if (!loop)
            throw new Error('the read did not show the loop')
          return { toolCalls: [{ name: 'edit', input: { path: 'src/sum.js', old_string: loop, new_string: loop.replace('let i = 1', 'let i = 0') } }] }
        },
      },
      { toolCalls: [{ name: 'shell', input: { command: 'node test.js' } }] },
      {
        respond: (request) => {
          shellResults.push(lastToolOutput(request))
          return { text: 'Fixed the off-by-one in sum(); the test passes.' }
        },
      },
    ])

    const session = await createSession()
    const agent = createAgent({ ...basic, provider, execution, session, behavior: { requireReadBeforeEdit: true } as typeof basic.behavior })
    const outcomes: (string | undefined)[] = []
    agent.hooks.hook('tool:after', ({ name, outcome, isError }) => {
      outcomes.push(`${name}:${outcome ?? '-'}:${isError ? 'error' : 'ok'}`)
    })
    const stats = await agent.run({ prompt: 'The test fails. Fix it.' })

    expect(provider.requests[0].system).toBe(basic.system)
    expect(provider.requests[0].tools.map(spec => spec.name).sort()).toEqual(['edit', 'glob', 'grep', 'list_files', 'multi_edit', 'read_file', 'shell', 'write_file'])
    expect(lastToolOutput(provider.requests[1])).toContain('src/sum.js')
    expect(shellResults[0]).toMatch(/AssertionError/)
    expect(shellResults[0]).toMatch(/\[exit code 1 · /)
    expect(outcomes).toEqual(['list_files:-:ok', 'shell:-:ok', 'read_file:-:ok', 'edit:edited:ok', 'shell:-:ok'])
    expect(readFileSync(join(dir, 'src/sum.js'), 'utf8')).toBe(BUGGY.replace('let i = 1', 'let i = 0'))
    expect(shellResults[1]).toMatch(/^all tests passed\n\[exit code 0 · /)
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Fixed the off-by-one in sum(); the test passes.')
  })
})
