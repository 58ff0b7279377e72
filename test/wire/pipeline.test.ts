import type { SessionContentBlock, SessionMessage, SessionTurn } from '../../src/core/content'
import type { WireStage, WireStageContext } from '../../src/wire/stage'
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildWireMessages } from '../../src/wire/messages'
import { createWireMemo, memoWireView, runWireStages } from '../../src/wire/pipeline'
import { pairingStage, pairWireView } from '../../src/wire/stages/pairing'
import { toolNamesStage } from '../../src/wire/stages/tool-names'
import { deepFreeze } from '../support/deep-freeze'
import { call, result, text } from './pairing-support'

const toolWireName = (name: string) => name === 'read_file' ? 'Read' : name
const ctx = (turn = 1): WireStageContext => ({ turn, providerName: 'anthropic', model: 'm', toolWireName })

let ids = 0
function turn(role: SessionTurn['role'], content: SessionContentBlock[], extra: Partial<SessionTurn> = {}): SessionTurn {
  return { id: `t${ids++}`, role, content, createdAt: 0, ...extra }
}

/** The stage, with its input (messages, content arrays, blocks) frozen before it runs. */
function frozenInput(stage: WireStage): WireStage {
  return { ...stage, apply: (messages, context) => stage.apply(deepFreeze(messages), context) }
}

/**
 * A list-scoped stage like the ones to come (thinking decay): thinking stays
 * only on the last two assistant messages. It depends on where a message is,
 * so it must see the whole list, and it copies the messages it changes.
 */
const thinkingDecay: WireStage = {
  name: 'thinking-decay',
  apply: (messages) => {
    let assistants = 0
    const out = messages.slice()
    let changed = false
    for (let i = out.length - 1; i >= 0; i--) {
      if (out[i].role !== 'assistant' || ++assistants <= 2)
        continue
      if (out[i].content.some(block => block.type === 'thinking')) {
        out[i] = { role: out[i].role, content: out[i].content.filter(block => block.type !== 'thinking') }
        changed = true
      }
    }
    return changed ? out : messages
  },
}

/** The pure part of the loop's pipeline without any memo: what the memoized run must always equal. */
function reference(turns: readonly SessionTurn[], stages: readonly WireStage[], context: WireStageContext): readonly SessionMessage[] {
  let messages: readonly SessionMessage[] = buildWireMessages(turns)
  for (const stage of stages)
    messages = stage.apply(messages, context)
  return toolNamesStage.apply(pairingStage.apply(messages, context), context)
}

// Random conversations, edited between requests the ways a run's turns can change.
const idArb = fc.constantFrom('a', 'b', 'c', 'd')
const blockArb: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.string({ maxLength: 4 }).map(value => text(value)),
  fc.tuple(idArb, fc.constantFrom('read_file', 'shell')).map(([id, name]) => call(id, name)),
  idArb.map(id => result(id)),
  fc.constant<SessionContentBlock>({ type: 'thinking', text: 'hm', signature: 's', signatureProducer: 'anthropic' }),
)
const turnArb = fc.record({
  role: fc.constantFrom<SessionTurn['role']>('user', 'assistant', 'assistant', 'system'),
  content: fc.array(blockArb, { maxLength: 3 }),
  aborted: fc.boolean(),
})
const opArb = fc.oneof(
  turnArb.map(t => ({ kind: 'append' as const, t })),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), t: turnArb }),
  fc.record({ kind: fc.constant('drop-last' as const) }),
  fc.record({ kind: fc.constant('abort-in-place' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('push-in-place' as const), at: fc.nat(), block: blockArb }),
  fc.record({ kind: fc.constant('same' as const) }),
)

describe('the wire pipeline memo', () => {
  it('always gives what running every stage afresh gives, as turns are added, replaced and removed', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 1, maxLength: 14 }), (ops) => {
      const memo = createWireMemo()
      const stages = [thinkingDecay]
      const turns: SessionTurn[] = []
      return ops.map((op, n) => {
        if (op.kind === 'append')
          turns.push(turn(op.t.role, op.t.content, op.t.aborted ? { aborted: true } : {}))
        else if (op.kind === 'replace' && turns.length > 0)
          turns[op.at % turns.length] = turn(op.t.role, op.t.content, op.t.aborted ? { aborted: true } : {})
        else if (op.kind === 'drop-last')
          turns.pop()
        else if (op.kind === 'abort-in-place' && turns.length > 0)
          turns[op.at % turns.length].aborted = true
        else if (op.kind === 'push-in-place' && turns.length > 0)
          turns[op.at % turns.length].content.push(op.block)
        const context = ctx(n + 1)
        const view = runWireStages(stages, memoWireView(turns, memo), context, memo)
        const sent = runWireStages([toolNamesStage], pairWireView(view, memo.pairing).messages, context, memo)
        // A boolean, not expect(): shrinking a counterexample then stays fast.
        return isDeepStrictEqual(sent, reference(turns, stages, context))
      }).every(Boolean)
    }), { numRuns: 400 })
  })

  it('keeps each message object from one request to the next, so later stages and wire builders recognize it', () => {
    const memo = createWireMemo()
    const turns = [turn('user', [text('read a')]), turn('assistant', [call('c1', 'read_file')]), turn('user', [result('c1')])]
    const first = runWireStages([toolNamesStage], memoWireView(turns, memo), ctx(1), memo)
    turns.push(turn('assistant', [text('done')]))
    const second = runWireStages([toolNamesStage], memoWireView(turns, memo), ctx(2), memo)
    expect(second.slice(0, 3)).toEqual(first)
    first.forEach((message, i) => expect(second[i]).toBe(message))
    expect(second[1].content[0]).toMatchObject({ name: 'Read' })
    expect(turns[1].content[0]).toMatchObject({ name: 'read_file' })
  })

  it('starts over from a turn that was replaced or whose content grew', () => {
    const memo = createWireMemo()
    const turns = [turn('user', [text('a')]), turn('assistant', [text('b')])]
    const first = memoWireView(turns, memo)
    turns[1].content.push(text('c'))
    const grown = memoWireView(turns, memo)
    expect(grown[0]).toBe(first[0])
    expect(grown[1].content).toEqual([text('b'), text('c')])
    turns[0] = turn('user', [text('a2')])
    turns[1] = { ...turns[1], aborted: true }
    expect(memoWireView(turns, memo)).toEqual([{ role: 'user', content: [text('a2')] }])
  })

  it('runs a message-scoped stage once per new message: per-turn work follows what was appended', () => {
    let calls = 0
    const counting: WireStage = { name: 'counting', scope: 'message', apply: (messages) => {
      calls += messages.length
      return messages
    } }
    const memo = createWireMemo()
    const turns: SessionTurn[] = []
    for (let n = 1; n <= 40; n++) {
      turns.push(turn(n % 2 ? 'user' : 'assistant', [text(`m${n}`)]))
      const out = runWireStages([counting], memoWireView(turns, memo), ctx(n), memo)
      expect(out).toHaveLength(n)
    }
    expect(calls).toBe(40)
    // A context change (another model after a fallback) is a fresh start.
    runWireStages([counting], memoWireView(turns, memo), { ...ctx(41), model: 'other' }, memo)
    expect(calls).toBe(80)
  })

  it('skips a list-scoped stage whose input and context are the same, and hands back the earlier objects when it copies', () => {
    let calls = 0
    const copying: WireStage = { name: 'copying', apply: (messages) => {
      calls++
      return messages.map(message => ({ ...message }))
    } }
    const memo = createWireMemo()
    const turns = [turn('user', [text('a')])]
    const first = runWireStages([copying], memoWireView(turns, memo), ctx(1), memo)
    const again = memoWireView(turns, memo)
    expect(runWireStages([copying], again, ctx(1), memo)).toBe(first)
    expect(calls).toBe(1)
    turns.push(turn('assistant', [text('b')]))
    const view = memoWireView(turns, memo)
    const next = runWireStages([copying], view, ctx(2), memo)
    expect(calls).toBe(2)
    expect(next[0]).toBe(first[0])
    // The same input on a later turn runs again: a stage may read the turn.
    runWireStages([copying], view, ctx(3), memo)
    expect(calls).toBe(3)
    // A message in the same place with the same role but other blocks is not swapped for the old one.
    turns[0] = turn('user', [text('a, edited')])
    expect(runWireStages([copying], memoWireView(turns, memo), ctx(4), memo)[0].content).toEqual([text('a, edited')])
  })
})

describe('stages never edit their input', () => {
  // A conversation that needs every kind of repair, and renaming.
  const broken = (): SessionTurn[] => [
    turn('user', [text('start'), result('ghost')]),
    turn('assistant', [text('reading'), call('c1', 'read_file'), call('c2', 'shell')]),
    turn('user', [result('c2'), result('c2')]),
    turn('assistant', [call('c1', 'read_file')]),
    turn('assistant', [{ type: 'thinking', text: 'old', signature: 's', signatureProducer: 'anthropic' }, call('c3', 'read_file')]),
    turn('user', [text('then'), call('c9', 'shell')]),
    turn('assistant', [text('x')]),
    turn('user', [result('c3')]),
    turn('assistant', [{ type: 'thinking', text: 'new', signature: 's', signatureProducer: 'anthropic' }, text('done')]),
  ]

  it('the built-in stages repair and rename frozen conversations, the same way as unfrozen ones', () => {
    const turns = deepFreeze(broken())
    const memo = createWireMemo()
    const stages = [thinkingDecay, pairingStage, toolNamesStage].map(frozenInput)
    const frozen = runWireStages(stages, deepFreeze(memoWireView(turns, memo)), ctx(), memo)
    const plain = [thinkingDecay, pairingStage, toolNamesStage].reduce<readonly SessionMessage[]>((messages, stage) => stage.apply(messages, ctx()), buildWireMessages(broken()))
    expect(frozen).toEqual(plain)
    expect(pairWireView(frozen).repairs).toEqual([])
    expect(pairWireView(deepFreeze(buildWireMessages(turns)), memo.pairing).repairs.length).toBeGreaterThan(3)
    expect(JSON.stringify(frozen)).toContain('"name":"Read"')
    // And again on the next request, through the warm memo, with a turn appended.
    const more = deepFreeze([...turns, turn('user', [text('more')])])
    expect(runWireStages(stages, deepFreeze(memoWireView(more, memo)), ctx(2), memo)).toEqual(
      [thinkingDecay, pairingStage, toolNamesStage].reduce<readonly SessionMessage[]>((messages, stage) => stage.apply(messages, ctx(2)), buildWireMessages(more)),
    )
  })

  it.each<[string, WireStage['apply']]>([
    ['pushes a block into a content array', (messages) => {
      messages[0].content.push(text('extra'))
      return messages
    }],
    ['edits a block', (messages) => {
      (messages[0].content[0] as { text: string }).text = 'rewritten'
      return messages
    }],
    ['sorts the list in place', messages => (messages as SessionMessage[]).reverse()],
    ['replaces a message in place', (messages) => {
      (messages as SessionMessage[])[0] = { role: 'user', content: [] }
      return messages
    }],
  ])('a stage that %s throws on frozen input', (_, apply) => {
    const memo = createWireMemo()
    const turns = deepFreeze(broken())
    const mutating = frozenInput({ name: 'mutating', apply })
    expect(() => runWireStages([toolNamesStage, mutating], memoWireView(turns, memo), ctx(), memo)).toThrow(TypeError)
    expect(turns[0].content).toEqual([text('start'), result('ghost')])
  })
})
