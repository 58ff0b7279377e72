import type { SessionMessage } from '../../src/core/content'
import type { WireStageContext } from '../../src/wire/stage'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts'
import { staleReadNotice, staleReads } from '../../src/policies/stale-reads'
import { createSession } from '../../src/session'
import { runPolicyScript } from '../../src/testing'
import { edit, readFile, writeFile } from '../../src/tools'
import { comparablePath, staleReadsStage, staleReadStub } from '../../src/wire/stages/stale-reads'
import { deepFreeze } from '../support/deep-freeze'
import { runOnFakeAnthropic, textsOf } from './budget-support'

const ctx: WireStageContext = { turn: 1, providerName: 'test', model: 'm', toolWireName: name => name }

function call(id: string, name: string, path: string, extra: Record<string, unknown> = {}): SessionMessage {
  return { role: 'assistant', content: [{ type: 'tool_call', id, name, input: { path, ...extra } }] }
}
function result(id: string, output: string, isError?: boolean): SessionMessage {
  return { role: 'user', content: [{ type: 'tool_result', callId: id, output, ...(isError ? { isError } : {}) }] }
}

const conversation: SessionMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'fix a.ts' }] },
  call('r1', 'read_file', 'src/a.ts'),
  result('r1', '1\tconst a = 1'),
  call('r2', 'read_file', 'src/b.ts'),
  result('r2', '1\tconst b = 2'),
  call('e1', 'edit', './src//a.ts'),
  result('e1', 'Edited src/a.ts: 1 replacement.'),
]

describe('the stale-reads wire stage', () => {
  it('stubs a read of a path a later successful edit changed, leaves the rest as the same objects, and edits nothing', () => {
    const input = deepFreeze(structuredClone(conversation))
    const out = staleReadsStage.apply(input, ctx)
    expect(out).not.toBe(input)
    expect(out[2].content[0]).toEqual({ type: 'tool_result', callId: 'r1', output: staleReadStub('src/a.ts') })
    for (const i of [0, 1, 3, 4, 5, 6]) expect(out[i]).toBe(input[i])
  })

  it('failed edits, "No change needed" writes and reads of other paths leave every read alone (the same array back)', () => {
    const kept = [
      ...conversation.slice(0, 5),
      call('e1', 'edit', 'src/a.ts'),
      result('e1', 'Error: old_string was not found in src/a.ts', true),
      call('w1', 'write_file', 'src/a.ts'),
      result('w1', 'No change needed: src/a.ts already has this content (1 line).'),
      call('w2', 'write_file', 'src/c.ts'),
      result('w2', 'Created src/c.ts (1 line).'),
    ]
    expect(staleReadsStage.apply(kept, ctx)).toBe(kept)
  })

  it('a read after the write stays: only reads before the change are stale', () => {
    const again = [...conversation, call('r3', 'read_file', 'src/a.ts'), result('r3', '1\tconst a = 3')]
    const out = staleReadsStage.apply(again, ctx)
    expect(out[2].content[0]).toMatchObject({ output: staleReadStub('src/a.ts') })
    expect(out[8]).toBe(again[8])
  })

  it('is byte-stable: once stale, a read is sent as the same bytes on every later request', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('src/a.ts', 'src/b.ts', 'x/../src/a.ts'), { maxLength: 6 }), (paths) => {
      let messages = conversation
      const sent = [JSON.stringify(staleReadsStage.apply(messages, ctx).slice(0, conversation.length))]
      paths.forEach((path, i) => {
        messages = [...messages, call(`r${i + 10}`, 'read_file', path), result(`r${i + 10}`, 'body')]
        sent.push(JSON.stringify(staleReadsStage.apply(messages, ctx).slice(0, conversation.length)))
      })
      expect(new Set(sent).size).toBe(1)
    }))
  })

  it('compares paths lexically', () => {
    expect(comparablePath('./src//x/../a.ts')).toBe('src/a.ts')
    expect(comparablePath('src\\a.ts')).toBe('src/a.ts')
    expect(comparablePath('/abs/./a.ts')).toBe('/abs/a.ts')
    expect(comparablePath('../up/a.ts')).toBe('../up/a.ts')
  })
})

describe('stale-reads (policy harness)', () => {
  it('is off by default and with false; \'stub\' and true add the stage, \'notice\' adds none', async () => {
    for (const elideStaleReads of [undefined, false])
      expect((await runPolicyScript(staleReads, { behavior: { elideStaleReads }, steps: [] })).enabled).toBe(false)
    for (const elideStaleReads of [true, 'stub'] as const)
      expect((await runPolicyScript(staleReads, { behavior: { elideStaleReads }, steps: [] })).wireStages).toEqual([staleReadsStage])
    expect((await runPolicyScript(staleReads, { behavior: { elideStaleReads: 'notice' }, steps: [] })).wireStages).toEqual([])
  })

  it('\'notice\': a successful edit of a path read in this run gets the notice once; failures and unread paths get none', async () => {
    const { steps } = await runPolicyScript(staleReads, {
      behavior: { elideStaleReads: 'notice' },
      steps: [
        { phase: 'result', call: { name: 'edit', input: { path: 'a.ts' } }, result: 'Edited a.ts: 1 replacement.' },
        { phase: 'result', call: { name: 'read_file', input: { path: 'a.ts' } }, result: '1\tx' },
        { phase: 'result', call: { name: 'edit', input: { path: 'a.ts' } }, result: 'Error: old_string was not found', isError: true },
        { phase: 'result', call: { name: 'write_file', input: { path: './a.ts' } }, result: 'Updated a.ts (1 line).' },
        { phase: 'result', call: { name: 'edit', input: { path: 'a.ts' } }, result: 'Edited a.ts: 1 replacement.' },
      ],
    })
    expect(steps.map(step => step.phase === 'result' && step.result)).toEqual([
      'Edited a.ts: 1 replacement.',
      '1\tx',
      'Error: old_string was not found',
      `Updated a.ts (1 line).\n\n${staleReadNotice('a.ts')}`,
      'Edited a.ts: 1 replacement.',
    ])
  })
})

async function fileRun(elideStaleReads: boolean | 'stub' | 'notice') {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-stale-reads-'))
  writeFileSync(join(dir, 'a.txt'), 'alpha\nbeta\n')
  const session = await createSession()
  const { bodies } = await runOnFakeAnthropic({
    turns: [
      { toolCalls: [{ id: 'toolu_r', name: 'read_file', input: { path: 'a.txt' } }] },
      { toolCalls: [{ id: 'toolu_e', name: 'edit', input: { path: 'a.txt', old_string: 'beta', new_string: 'gamma' } }] },
    ],
    tools: { read_file: readFile, edit, write_file: writeFile },
    execution: createProcessContext({ cwd: dir }),
    session,
    behavior: { elideStaleReads },
  })
  expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('alpha\ngamma\n')
  const recorded = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result').map(block => block.output)
  return { bodies, recorded }
}

describe('elideStaleReads through createAgent and the Anthropic wire', () => {
  it('\'stub\': the request after the edit carries the stub, the session keeps the read\'s content', async () => {
    const { bodies, recorded } = await fileRun('stub')
    expect(textsOf(bodies[1]).some(text => text.includes('2\tbeta'))).toBe(true)
    const last = textsOf(bodies[2])
    expect(last.some(text => text.includes('beta'))).toBe(false)
    expect(last).toContain(staleReadStub('a.txt'))
    expect(String(recorded[0])).toContain('2\tbeta')
  })

  it('\'notice\': nothing sent before changes (byte prefix), and the edit\'s result names the stale path', async () => {
    const { bodies, recorded } = await fileRun('notice')
    const before = JSON.stringify(bodies[1].messages)
    const after = JSON.stringify(bodies[2].messages.slice(0, bodies[1].messages.length))
    expect(after.replaceAll(/,"cache_control":\{[^}]*\}/g, '')).toBe(before.replaceAll(/,"cache_control":\{[^}]*\}/g, ''))
    expect(textsOf(bodies[2]).some(text => text.includes('2\tbeta'))).toBe(true)
    expect(textsOf(bodies[2]).some(text => text.startsWith('Edited a.txt') && text.endsWith(staleReadNotice('a.txt')))).toBe(true)
    expect(String(recorded[1])).toContain(staleReadNotice('a.txt'))
  })

  it('off: the read is sent as it was (set, the same run sends the stub)', async () => {
    const off = await fileRun(false)
    expect(textsOf(off.bodies[2]).some(text => text.includes('2\tbeta'))).toBe(true)
    expect(JSON.stringify(off.bodies[2])).not.toContain('stale')
    const on = await fileRun(true)
    expect(textsOf(on.bodies[2])).toContain(staleReadStub('a.txt'))
  })
})
