import type { SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'
import type { SentWireStage, WireStage, WireStageContext } from './stage'
import type { PairingCheckpoint } from './well-paired'
import { sameItems, wireMessageOf } from './messages'
import { createPairingCheckpoint } from './well-paired'

/**
 * Everything the wire pipeline remembers between the requests of one run, in
 * one place: it lives on the run, so nothing outlives the run and two runs
 * never share an entry. It is a cache only: dropping it changes no byte of any
 * request, only the work done to build the next one, so it is never saved
 * with the run's state.
 *
 * Every entry is checked against its input by identity before it is used
 * (turns, content arrays and their lengths, messages), which is sound because
 * stages never edit their input in place: what looks the same is the same.
 */
export interface WireMemo {
  /** The base view: which turns it was built from, and the message each gave. */
  readonly base: BaseViewMemo
  /** One entry per pure stage, by the stage object. */
  readonly stages: Map<WireStage | SentWireStage, StageMemo>
  /** How far the view handed to pairing repair is known to be well paired. */
  readonly pairing: PairingCheckpoint
  /** The recorded turn each base-view message came from (`WireStageContext.turnIdOf`). */
  readonly turnIdOf: (message: SessionMessage) => string | undefined
}

/** A fresh, empty memo for a run. */
export function createWireMemo(): WireMemo {
  const ids = new WeakMap<SessionMessage, string>()
  return {
    base: { turns: [], contents: [], lengths: [], roles: [], aborted: [], view: [], viewBefore: [], ids },
    stages: new Map(),
    pairing: createPairingCheckpoint(),
    turnIdOf: message => ids.get(message),
  }
}

interface BaseViewMemo {
  turns: SessionTurn[]
  contents: SessionContentBlock[][]
  lengths: number[]
  /** Role and abort flag of each remembered turn, which decide whether it is sent. */
  roles: SessionTurn['role'][]
  aborted: boolean[]
  /** The messages of the remembered turns, in order, and how many came before each turn. */
  view: SessionMessage[]
  viewBefore: number[]
  /** Each message's turn id. */
  ids: WeakMap<SessionMessage, string>
}

type StageMemo
  = | { scope: 'list', input: readonly SessionMessage[], output: readonly SessionMessage[], ctx: WireStageContext }
    | { scope: 'message', inputs: SessionMessage[], outputs: (readonly SessionMessage[])[], ctx: WireStageContext }

/**
 * The base view (`buildWireMessages`), built once per turn: turns already
 * seen, unchanged, keep the message object they gave last time, and only
 * turns added since are looked at. Turns that were replaced, edited (another
 * content array, a changed length, a role or abort flag) or removed make the
 * view start over from that turn. Returns a new array each time; its messages
 * are the remembered objects, which keeps the later stages' memos and the
 * wire builders' caches hitting.
 */
export function memoWireView(turns: readonly SessionTurn[], memo: WireMemo): SessionMessage[] {
  const base = memo.base
  let same = 0
  const known = Math.min(base.turns.length, turns.length)
  while (same < known) {
    const turn = turns[same]
    if (turn !== base.turns[same] || turn.content !== base.contents[same] || turn.content.length !== base.lengths[same]
      || turn.role !== base.roles[same] || (turn.aborted === true) !== base.aborted[same]) {
      break
    }
    same++
  }
  if (same < base.turns.length) {
    base.view.length = base.viewBefore[same]
    base.turns.length = base.contents.length = base.lengths.length = base.roles.length = base.aborted.length = base.viewBefore.length = same
  }
  for (let i = same; i < turns.length; i++) {
    const turn = turns[i]
    base.turns.push(turn)
    base.contents.push(turn.content)
    base.lengths.push(turn.content.length)
    base.roles.push(turn.role)
    base.aborted.push(turn.aborted === true)
    base.viewBefore.push(base.view.length)
    const message = wireMessageOf(turn)
    if (message) {
      base.ids.set(message, turn.id)
      base.view.push(message)
    }
  }
  return base.view.slice()
}

/**
 * Run pure stages in order, each through its memo entry. A list-scoped stage
 * is skipped when its input (item by item) and its context are what they were
 * last time; when it runs, each message of its output equal to the one at the
 * same place last time (same role, same blocks) is swapped for that earlier
 * object, so a stage that copies what it does not change still hands the
 * next stages the objects they know. A message-scoped stage runs only on the
 * messages not seen since its context last changed.
 */
export function runWireStages(stages: readonly WireStage[], messages: readonly SessionMessage[], ctx: WireStageContext, memo: WireMemo): readonly SessionMessage[] {
  let view = messages
  for (const stage of stages)
    view = stage.scope === 'message' ? runPerMessage(stage, view, ctx, memo) : runOnList(stage, view, ctx, memo)
  return view
}

/**
 * Run the sent-slot stages in order (after `context:transform`), each through
 * a list-scoped memo entry like `runWireStages`; they may be async.
 */
export async function runSentStages(stages: readonly SentWireStage[], messages: readonly SessionMessage[], ctx: WireStageContext, memo: WireMemo): Promise<readonly SessionMessage[]> {
  let view = messages
  for (const stage of stages) {
    const known = memo.stages.get(stage)
    if (known?.scope === 'list' && sameContext(known.ctx, ctx) && known.ctx.turn === ctx.turn && sameItems(known.input, view)) {
      view = known.output
      continue
    }
    let output = await stage.apply(view, ctx)
    if (known?.scope === 'list' && output !== view)
      output = internMessages(output, known.output)
    memo.stages.set(stage, { scope: 'list', input: view, output, ctx })
    view = output
  }
  return view
}

function runOnList(stage: WireStage, input: readonly SessionMessage[], ctx: WireStageContext, memo: WireMemo): readonly SessionMessage[] {
  const known = memo.stages.get(stage)
  if (known?.scope === 'list' && sameContext(known.ctx, ctx) && known.ctx.turn === ctx.turn && sameItems(known.input, input))
    return known.output
  let output = stage.apply(input, ctx)
  if (known?.scope === 'list' && output !== input)
    output = internMessages(output, known.output)
  memo.stages.set(stage, { scope: 'list', input, output, ctx })
  return output
}

function runPerMessage(stage: WireStage, input: readonly SessionMessage[], ctx: WireStageContext, memo: WireMemo): readonly SessionMessage[] {
  let known = memo.stages.get(stage)
  if (known?.scope !== 'message' || !sameContext(known.ctx, ctx))
    memo.stages.set(stage, known = { scope: 'message', inputs: [], outputs: [], ctx })
  const { inputs, outputs } = known
  let same = 0
  const limit = Math.min(inputs.length, input.length)
  while (same < limit && inputs[same] === input[same])
    same++
  inputs.length = outputs.length = same
  for (let i = same; i < input.length; i++) {
    inputs.push(input[i])
    outputs.push(stage.apply([input[i]], ctx))
  }
  return flatten(input, outputs)
}

/** The outputs in order, or the input itself when every message came through as itself. */
function flatten(input: readonly SessionMessage[], outputs: readonly (readonly SessionMessage[])[]): readonly SessionMessage[] {
  let unchanged = true
  for (let i = 0; i < outputs.length && unchanged; i++)
    unchanged = outputs[i].length === 1 && outputs[i][0] === input[i]
  if (unchanged)
    return input
  const out: SessionMessage[] = []
  for (const messages of outputs) {
    for (const message of messages)
      out.push(message)
  }
  return out
}

/** The context fields a message-scoped stage may read. */
function sameContext(a: WireStageContext, b: WireStageContext): boolean {
  return a.providerName === b.providerName && a.model === b.model && a.toolWireName === b.toolWireName
}

/** `output` with each message shallowly equal to the one at its place in `previous` replaced by that one. */
function internMessages(output: readonly SessionMessage[], previous: readonly SessionMessage[]): readonly SessionMessage[] {
  let interned: SessionMessage[] | undefined
  const count = Math.min(output.length, previous.length)
  for (let i = 0; i < count; i++) {
    const message = output[i]
    const earlier = previous[i]
    if (message !== earlier && message.role === earlier.role && sameItems(message.content, earlier.content)) {
      interned ??= output.slice()
      interned[i] = earlier
    }
  }
  return interned ?? output
}
