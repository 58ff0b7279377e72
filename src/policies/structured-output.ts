import type { SessionTurn } from '../core/content'
import type { OutputError } from '../core/stats'
import type { ToolResult } from '../core/tool-io'
import type { StreamEndContext, StreamToolInputContext } from '../hooks/run-hooks'
import type { AgentBehavior } from '../knobs/behavior'
import type { OutputPartialContext } from '../tools/output-hooks'
import type { CompiledOutputSchema } from '../tools/output-schema'
import type { BehaviorPolicy, PhaseResult, TurnDecision } from './policy'
import { withGetters } from '../core/fast-accessors'
import { OUTPUT_DEFAULTS } from '../knobs/output-knobs'
import { joinProblems } from '../text/problem-list'
import { compileOutputSchema, jsonFromText, OUTPUT_TOOL_NAME, outputTool, parsePartialJson } from '../tools/output-schema'
import { PartialJsonReader } from '../tools/partial-json'
import { continueWith } from './policy'

/** Invalid answers given so far in this run, as `structured-output` counts them. */
export interface StructuredOutputState {
  readonly invalid: number
}

/** The line added to the system prompt of the last turn `maxTurns` allows. */
export const LAST_TURN_NOTE = `This is the last turn of this run: call ${OUTPUT_TOOL_NAME} now with your best final answer; no other tool is available.`

function schemaOf(behavior: Readonly<AgentBehavior>): CompiledOutputSchema {
  return compileOutputSchema(behavior.schema!)
}

function isLastTurn(behavior: Readonly<AgentBehavior>, turn: number): boolean {
  const max = behavior.maxTurns
  return max !== undefined && Number.isFinite(max) && turn >= max
}

function textOf(turn: SessionTurn): string {
  return turn.content.map(block => block.type === 'text' ? block.text : '').join('')
}

function resultText(result: ToolResult | undefined): string {
  if (!result)
    return 'the call got no result'
  return typeof result.output === 'string' ? result.output : result.output.map(part => part.type === 'text' ? part.text : '').join('')
}

function outputError(problems: string[], attempts: number): OutputError {
  return { problems, message: `The output failed validation: ${joinProblems(problems)}`, attempts }
}

function repairMessage(problems: readonly string[]): string {
  return `Your final answer was not accepted: ${joinProblems(problems)}. `
    + `Give it by calling ${OUTPUT_TOOL_NAME} with arguments that match its schema.`
}

type Step = PhaseResult<TurnDecision, StructuredOutputState> | undefined

/**
 * `behavior.schema`: the run's final answer is a value that passed the
 * schema. The policy brings a final-answer tool (so the model may call other
 * tools first and answer last, on every provider), reads the answer after
 * each turn (from that tool, or from a JSON text answer), and ends the run
 * with the value on `stats.output`. An invalid answer gets up to
 * `maxOutputRepairs` repair turns, each told exactly what failed; then, or
 * when the last turn `maxTurns` allows gives none, the run stops with
 * `output-invalid`, the raw answer on `stats.text` and the problems on
 * `stats.outputError`. On that last turn the final-answer tool is the only
 * tool offered. While the answer streams, `output:partial` shows it.
 */
export const structuredOutput: BehaviorPolicy<StructuredOutputState> = {
  name: 'structured-output',
  enabled: behavior => behavior.schema !== undefined,
  initialState: () => ({ invalid: 0 }),
  tools: behavior => behavior.schema === undefined ? undefined : { [OUTPUT_TOOL_NAME]: outputTool(schemaOf(behavior)) },

  request({ behavior, turn, request }) {
    if (!isLastTurn(behavior, turn))
      return
    return {
      decision: {
        tools: request.tools.filter(tool => tool.name === OUTPUT_TOOL_NAME),
        system: request.system ? `${request.system}\n\n${LAST_TURN_NOTE}` : LAST_TURN_NOTE,
      },
    }
  },

  afterTurn({ behavior, state, turn, assistant, toolResults, decided }): Step {
    if (decided.ending)
      return
    const schema = schemaOf(behavior)
    const last = isLastTurn(behavior, turn)
    const calls = assistant.content.filter(block => block.type === 'tool_call' && block.name === OUTPUT_TOOL_NAME)
    const call = calls.at(-1)
    if (call?.type === 'tool_call') {
      const raw = JSON.stringify(call.input)
      const result = toolResults.find(entry => entry.callId === call.id)
      const checked = schema.checkToolInput(call.input)
      if (checked.ok && result && !result.isError)
        return { decision: { type: 'stop', reason: 'completed', result: { output: checked.value, text: raw } } }
      // The error result already told the model what failed; the run goes on because a tool was called.
      return invalid(behavior, state, last, raw, checked.ok ? [resultText(result)] : checked.problems, false)
    }
    if (toolResults.length > 0) {
      if (!last)
        return
      return invalid(behavior, state, true, textOf(assistant), [`the last turn maxTurns allows (${behavior.maxTurns}) ended without a call to ${OUTPUT_TOOL_NAME}`], false)
    }
    // A turn another policy continues (an output-cap or pause resume) is not the answer yet.
    if (decided.continues)
      return
    const text = textOf(assistant)
    const parsed = jsonFromText(text)
    if (parsed) {
      const checked = schema.check(parsed.value)
      if (checked.ok)
        return { decision: { type: 'stop', reason: 'completed', result: { output: checked.value, text } } }
      return invalid(behavior, state, last, text, checked.problems, true)
    }
    return invalid(behavior, state, last, text, [`(output): the answer was text, not a call to ${OUTPUT_TOOL_NAME}`], true)
  },

  hooks(behavior, emit, listening) {
    // The final-answer calls streaming now, by run and call: a view of the stream, not run state. Each keeps
    // the pieces not read yet, its text so far and an incremental reader. With no `output:partial` handler a
    // piece is only kept; once one listens, the kept pieces are read, each once, so the work stays linear in
    // the text whatever the nesting and whenever a handler comes.
    const open = new Map<string, { unread: string[], text: string, reader: PartialJsonReader }>()
    return {
      'stream:tool-input': (ctx: StreamToolInputContext) => {
        if (ctx.name !== OUTPUT_TOOL_NAME)
          return
        const key = `${ctx.runId}\n${ctx.callId}`
        let call = open.get(key)
        if (!call) {
          call = { unread: [], text: '', reader: new PartialJsonReader() }
          open.set(key, call)
        }
        call.unread.push(ctx.delta)
        if (!listening('output:partial'))
          return
        const fresh = call.unread.length === 1 ? call.unread[0] : call.unread.join('')
        call.unread.length = 0
        call.text += fresh
        call.reader.push(fresh)
        const text = call.text
        // The value as of this delta, even when read after later ones; none once the text stopped being JSON.
        const mark = call.reader.mark()
        const wrapped = schemaOf(behavior).wrapped
        const partial = withGetters<OutputPartialContext, 'value'>({
          runId: ctx.runId,
          depth: ctx.depth,
          parentRunId: ctx.parentRunId,
          parentCallId: ctx.parentCallId,
          turnId: ctx.turnId,
          callId: ctx.callId,
          delta: ctx.delta,
          text,
        }, {
          value: () => {
            const value = mark ? mark.value() : parsePartialJson(text)
            return wrapped ? (value as { value?: unknown } | undefined)?.value : value
          },
        })
        emit('output:partial', partial)
      },
      'stream:end': (ctx: StreamEndContext) => {
        for (const key of open.keys()) {
          if (key.startsWith(`${ctx.runId}\n`))
            open.delete(key)
        }
      },
    }
  },
}

/**
 * One more invalid answer. Within the repair bound (and before the last
 * turn) a text answer is sent back with what failed; an invalid tool call
 * was already answered with its problems. Past it, the run stops.
 */
function invalid(
  behavior: Readonly<AgentBehavior>,
  state: StructuredOutputState,
  last: boolean,
  raw: string,
  problems: string[],
  needsMessage: boolean,
): Step {
  const attempts = state.invalid + 1
  const repairs = behavior.maxOutputRepairs ?? OUTPUT_DEFAULTS.maxOutputRepairs
  if (attempts > repairs || last)
    return { state: { invalid: attempts }, decision: { type: 'stop', reason: 'output-invalid', result: { text: raw, outputError: outputError(problems, attempts) } } }
  return needsMessage
    ? { state: { invalid: attempts }, decision: continueWith(repairMessage(problems), 'output-repair') }
    : { state: { invalid: attempts } }
}
