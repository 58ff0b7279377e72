import type { SessionContentBlock, SessionMessage, SessionTurn } from '../../src/core/content'
import type { PairingRepair } from '../../src/errors'
import type { AgentBehavior } from '../../src/knobs/behavior'
import type { RunContext } from '../../src/loop/run-context'
import type { WireStage } from '../../src/wire/stage'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentToolPairingError } from '../../src/errors'
import { createHookBus } from '../../src/hooks/bus'
import { sendableMessages, wireView } from '../../src/loop/wire-pipeline'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { deepFreeze } from '../support/deep-freeze'
import { echoTool, pairingProblems } from '../support/helpers'

const text = (value: string): SessionContentBlock => ({ type: 'text', text: value })
const call = (id: string, name = 'read_file'): SessionContentBlock => ({ type: 'tool_call', id, name, input: {} })
const result = (callId: string): SessionContentBlock => ({ type: 'tool_result', callId, output: `out-${callId}` })

let ids = 0
const turn = (role: SessionTurn['role'], ...content: SessionContentBlock[]): SessionTurn => ({ id: `t${ids++}`, role, content, createdAt: 0 })

/** The fields of a run the wire pipeline reads: enough to place stages without a whole agent. */
function pipelineRun(turns: SessionTurn[], wireStages: WireStage[], behavior: Partial<AgentBehavior> = {}): RunContext {
  return {
    runId: 'run-1',
    depth: 0,
    hooks: createHookBus(),
    behavior,
    provider: { name: 'scripted' },
    model: 'm',
    tools: { toWire: (name: string) => name === 'read_file' ? 'Read' : name },
    turns,
    turnCount: 1,
    wireStages,
    sentStages: [],
  } as unknown as RunContext
}

describe('the order of the wire pipeline', () => {
  it('runs policy stages on canonical names, then context:transform, then pairing repair, then tool names', async () => {
    const seen: string[] = []
    // A policy stage that drops every tool result: pairing, later, has to answer the calls.
    const dropResults: WireStage = {
      name: 'drop-results',
      apply: (messages) => {
        seen.push(`stage:${JSON.stringify(messages.flatMap(m => m.content.flatMap(b => b.type === 'tool_call' ? [b.name] : [])))}`)
        return messages.map(m => ({ role: m.role, content: m.content.filter(b => b.type !== 'tool_result') }))
      },
    }
    const tagging: WireStage = { name: 'tagging', apply: (messages) => {
      seen.push(`second:${messages.flatMap(m => m.content).filter(b => b.type === 'tool_result').length}`)
      return messages
    } }
    const turns = deepFreeze([turn('user', text('go')), turn('assistant', call('c1')), turn('user', result('c1'), text('next'))])
    const run = pipelineRun(turns, [dropResults, tagging])
    const repairs: PairingRepair[] = []
    run.hooks.hook('context:transform', (ctx) => {
      seen.push(`hook:${ctx.messages.flatMap(m => m.content).filter(b => b.type === 'tool_result').length}:${JSON.stringify(ctx.messages[1].content[0])}`)
    })
    run.hooks.hook('pairing:repair', ({ repair }) => void repairs.push(repair))

    const view = wireView(run)
    const sent = await sendableMessages(run, 'turn-1', view)

    expect(seen).toEqual(['stage:["read_file"]', 'second:0', 'hook:0:{"type":"tool_call","id":"c1","name":"read_file","input":{}}'])
    expect(repairs).toEqual([{ kind: 'orphan-tool-call', action: 'synthesized', callId: 'c1', messageIndex: 1 }])
    expect(sent[1].content[0]).toMatchObject({ type: 'tool_call', name: 'Read' })
    expect(pairingProblems(sent)).toEqual([])
    expect(turns[2].content).toEqual([result('c1'), text('next')])
  })

  it('keeps the strict pairing errors on what the stages and the hook produced', async () => {
    const dropResults: WireStage = { name: 'drop-results', apply: messages => messages.map(m => ({ role: m.role, content: m.content.filter(b => b.type !== 'tool_result') })) }
    const turns = [turn('user', text('go')), turn('assistant', call('c1'), call('c2')), turn('user', result('c1'), result('c2'))]
    await expect(sendableMessages(pipelineRun(turns, [dropResults], { strictToolPairing: true }), 't', wireView(pipelineRun(turns, [dropResults])))).rejects.toBeInstanceOf(AgentToolPairingError)
    const limited = pipelineRun(turns, [dropResults], { maxPairingRepairsPerTurn: 1 })
    await expect(sendableMessages(limited, 't', wireView(limited))).rejects.toThrow(/needs 2 tool pairing repairs, more than maxPairingRepairsPerTurn \(1\)/)
    const within = pipelineRun(turns, [dropResults], { maxPairingRepairsPerTurn: 2 })
    expect(await sendableMessages(within, 't', wireView(within))).toHaveLength(3)
    const healthy = pipelineRun(turns, [], { strictToolPairing: true })
    expect(await sendableMessages(healthy, 't', wireView(healthy))).toHaveLength(3)
  })

  it('hands each request an array of its own, while the memo lives on the run', async () => {
    const turns = [turn('user', text('go'))]
    const run = pipelineRun(turns, [])
    const first = await sendableMessages(run, 't1', wireView(run))
    expect(run.wireMemo).toBeDefined()
    turns.push(turn('assistant', text('ok')), turn('user', text('more')))
    const second = await sendableMessages(run, 't2', wireView(run))
    expect(first).toHaveLength(1)
    expect(second[0]).toBe(first[0])
    expect(pipelineRun(turns, []).wireMemo).toBeUndefined()
  })
})

describe('a run over frozen wire inputs', () => {
  it('repairs and renames a damaged history without editing any stage input in place', async () => {
    const session = await createSession()
    await session.appendTurns([
      turn('user', text('earlier'), result('ghost')),
      turn('assistant', text('reading'), call('old_1'), call('old_2', 'echo')),
      turn('user', result('old_2'), result('old_2')),
      turn('assistant', text('then')),
    ])
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'new_1', name: 'Read', input: { path: 'a' } }] },
      { text: 'done' },
    ])
    const repairs: PairingRepair[] = []
    const agent = createAgent({ provider, session, toolAliases: { read_file: 'Read' }, tools: { read_file: echoTool('read_file'), echo: echoTool('echo') } })
    // The view is frozen before every hook and stage sees it, and the hook's output before pairing and names.
    agent.hooks.hook('turn:before', ctx => void deepFreeze(ctx.messages))
    agent.hooks.hook('context:transform', (ctx) => {
      ctx.messages[0].content.push(result('ghost_2')) // the hook's own copy: allowed
      deepFreeze(ctx.messages)
    })
    agent.hooks.hook('pairing:repair', ({ repair }) => void repairs.push(repair))

    const stats = await agent.run({ prompt: 'now' })
    expect(stats.text).toBe('done')
    expect(provider.requests).toHaveLength(2)
    for (const request of provider.requests) {
      expect(pairingProblems(request.messages)).toEqual([])
      const names = request.messages.flatMap((m: SessionMessage) => m.content.flatMap(b => b.type === 'tool_call' ? [b.name] : []))
      expect(names).not.toContain('read_file')
    }
    expect(repairs.map(r => r.kind).sort()).toEqual([
      'duplicate-tool-result',
      'duplicate-tool-result',
      'orphan-tool-call',
      'orphan-tool-call',
      'orphan-tool-result',
      'orphan-tool-result',
      'orphan-tool-result',
      'orphan-tool-result',
    ])
    // The session keeps what was recorded, canonical names included.
    expect(session.turns[0].content).toEqual([text('earlier'), result('ghost')])
    expect(session.turns.flatMap(t => t.content).filter(b => b.type === 'tool_call').map(b => (b as { name: string }).name)).toEqual(['read_file', 'echo', 'read_file'])
  })
})
