import type { ToolOutput } from '../../core/tool-io'
import type { RepeatGuardConfig, RepeatGuardMessage, RepeatGuardToolMatcher } from '../../knobs/repeat-knobs'
import type { BatchCall, BehaviorPolicy, CallDecision, PolicyEvent } from '../policy'
import type { RepeatGuardAction, RepeatGuardCounter } from './hooks'
import { createHash } from 'node:crypto'
import { mergeObjects } from '../../core/merge-objects'
import { debugLog } from '../../debug'
import { REPEAT_GUARD_DEFAULT_WINDOW, REPEAT_GUARD_DEFAULTS, REPEAT_GUARD_THRESHOLDS } from '../../knobs/repeat-knobs'
import { canonicalShellCommand } from './shell-key'

export { canonicalShellCommand } from './shell-key'

/**
 * What the guard remembers within one run (plain JSON, on the run state):
 * the tracked chain, each tool's recent keys for the window counter, the
 * global chain, and the steering notes owed to calls of the current batch.
 */
interface RepeatGuardState {
  readonly chain: { readonly tool: string, readonly key: string, readonly count: number } | null
  readonly windows: { readonly [tool: string]: readonly string[] }
  readonly global: { readonly key: string, readonly count: number } | null
  readonly steer: { readonly [callId: string]: string }
}

const FRESH: RepeatGuardState = { chain: null, windows: {}, global: null, steer: {} }

/** The guard's settings for one tool, with the clamps of the contract applied. */
interface Thresholds {
  readonly block: number
  readonly abort: number
  readonly window: number
}

function matches(matchers: readonly RepeatGuardToolMatcher[], name: string): boolean {
  return matchers.some(matcher => typeof matcher === 'string' ? matcher === name : matcher(name) === true)
}

const DEFAULT_TOOLS: readonly RepeatGuardToolMatcher[] = ['shell', 'read_file']

/**
 * Thresholds for one tool: unset ones take the tool's default (`read_file`
 * has its own); the block threshold is at least 2; an abort threshold not
 * above it is raised to one above it; a non-positive or infinite one is off.
 */
export function repeatThresholds(config: RepeatGuardConfig, tool: string): Thresholds {
  const defaults = tool === 'read_file' ? REPEAT_GUARD_THRESHOLDS.read_file : REPEAT_GUARD_THRESHOLDS.default
  const block = Math.max(2, config.blockThreshold ?? defaults.block)
  const rawAbort = config.abortThreshold ?? defaults.abort
  const abort = rawAbort <= 0 || !Number.isFinite(rawAbort) ? Number.POSITIVE_INFINITY : Math.max(rawAbort, block + 1)
  const highest = Number.isFinite(abort) ? abort : block
  const window = Math.max(config.windowSize ?? REPEAT_GUARD_DEFAULT_WINDOW, Number.isFinite(highest) ? highest : 2)
  return { block, abort, window }
}

/** The counting mode: `windowSize` alone asks for the window counter, as it always did. */
function modeOf(config: RepeatGuardConfig): 'chain' | 'window' | 'both' {
  return config.mode ?? (config.windowSize !== undefined ? 'window' : REPEAT_GUARD_DEFAULTS.mode)
}

/**
 * Longest key kept as it is on the run state. The state is saved with the run after each turn that moves it, and
 * a key is the model's input: a 1 MB command was saved in the chain, again in the global chain and once per
 * window entry, every turn. A longer key is kept as its SHA-256, which compares the same way.
 */
const KEPT_KEY_CHARS = 256

function storedKey(key: string): string {
  return key.length <= KEPT_KEY_CHARS ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`
}

/** JSON with object keys sorted, so two spellings of one input give one key. */
function stableJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map(stableJson).join(',')}]`
  if (value && typeof value === 'object')
    return `{${Object.keys(value).sort().map(key => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`).join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

/**
 * The built-in streak key: a shell-shaped input (a string `command`) keys on
 * its canonical command, anything else on its JSON with sorted keys.
 */
export function defaultRepeatKey(_name: string, input: Readonly<Record<string, unknown>>): string {
  return builtInKey(input)
}

/** The built-in key; `json` is the input's stable JSON when it was already made. */
function builtInKey(input: Readonly<Record<string, unknown>>, json?: string): string {
  return typeof input.command === 'string' ? `$ ${canonicalShellCommand(input.command)}` : json ?? stableJson(input)
}

/** `json`: the input's stable JSON when the global ceiling already made it, so a call's input is serialized once. */
function keyOf(config: RepeatGuardConfig, call: BatchCall, json?: string): string | undefined {
  if (!config.normalize)
    return builtInKey(call.input, json)
  try {
    return config.normalize(call.name, call.input as Record<string, unknown>)
  }
  catch (error) {
    // A normalizer that throws must not break the run; the built-in key still counts the call.
    debugLog('repeatGuard.normalize threw; using the built-in key', error)
    return defaultRepeatKey(call.name, call.input)
  }
}

function messageOf(config: RepeatGuardConfig, name: string, count: number): string {
  const message: RepeatGuardMessage | undefined = config.steeringMessage ?? config.blockReason
  if (typeof message === 'string')
    return message
  if (typeof message === 'function')
    return message(name, count)
  return `You have made the same ${name} call ${count} times in a row and it is not getting you anywhere. `
    + 'Do not repeat it: change the input, use a different tool, or say what is stopping you.'
}

function abortReason(name: string, count: number, counter: RepeatGuardCounter): string {
  return counter === 'global'
    ? `Repeat guard: ${name} was called ${count} times in a row with the same input (global ceiling)`
    : `Repeat guard: ${name} was called ${count} times with the same input`
}

/** Append a steering note to a tool's result, whatever its shape. */
function appendNote(result: ToolOutput, note: string): ToolOutput {
  if (typeof result === 'string')
    return result === '' ? note : `${result}\n\n${note}`
  return [...result, { type: 'text', text: note }]
}

/**
 * `repeatGuard`: a model stuck on one call (the same `shell` command, the
 * same `read_file`) is refused or steered at a threshold and the run is
 * aborted at a higher one, the only stop for a model that ignores refusals.
 * It gates whole batches, in call order, so repeats inside one parallel
 * batch count exactly. Calls an earlier gate substituted are invisible to
 * it; calls an earlier gate refused count only with `countBlockedCalls`
 * (and always for the global ceiling).
 */
export const repeatGuard: BehaviorPolicy<RepeatGuardState> = {
  name: 'repeat-guard',
  events: ['repeat-guard:exceeded'],
  enabled: behavior => behavior.repeatGuard !== undefined,
  initialState: () => FRESH,
  gateBatch({ behavior, state, calls, turnId }) {
    const config = behavior.repeatGuard!
    const tracked = config.tools ?? DEFAULT_TOOLS
    const mode = modeOf(config)
    const ceiling = config.globalCeiling ?? REPEAT_GUARD_DEFAULTS.globalCeiling
    const ceilingOn = ceiling > 0 && Number.isFinite(ceiling)
    const countBlocked = config.countBlockedCalls ?? REPEAT_GUARD_DEFAULTS.countBlockedCalls
    const steerAtThreshold = (config.thresholdAction ?? REPEAT_GUARD_DEFAULTS.thresholdAction) === 'steer'
    let { chain, global } = state
    const windows: Record<string, readonly string[]> = { ...state.windows }
    const steer: Record<string, string> = {}
    const decisions: (CallDecision | undefined)[] = []
    const events: PolicyEvent[] = []
    const report = (call: BatchCall, key: string, count: number, threshold: number, action: RepeatGuardAction, counter: RepeatGuardCounter, message: string) => {
      events.push({ hook: 'repeat-guard:exceeded', context: { turnId, callId: call.callId, name: call.name, input: { ...call.input }, key, count, threshold, action, counter, message } })
    }

    for (const [index, call] of calls.entries()) {
      // A substituted call was answered with a real payload: it neither counts nor breaks a chain.
      if (call.decided?.type === 'substitute')
        continue
      const refused = call.decided !== undefined

      // The global ceiling: exact (tool, input) chains over every tool, refused attempts included.
      let json: string | undefined
      if (ceilingOn && !matches(config.globalCeilingExclude ?? [], call.name)) {
        json = stableJson(call.input)
        const exact = `${call.name} ${json}`
        const kept = storedKey(exact)
        global = global?.key === kept ? { key: kept, count: global.count + 1 } : { key: kept, count: 1 }
        if (global.count >= ceiling) {
          const reason = abortReason(call.name, global.count, 'global')
          report(call, exact, global.count, ceiling, 'abort', 'global', reason)
          decisions[index] = { type: 'abort', reason }
          break
        }
      }
      else {
        global = null
      }

      if (refused && !countBlocked)
        continue
      const key = matches(tracked, call.name) ? keyOf(config, call, json) : undefined
      if (key === undefined) {
        chain = null
        continue
      }
      const kept = storedKey(key)
      chain = chain?.tool === call.name && chain.key === kept ? { tool: call.name, key: kept, count: chain.count + 1 } : { tool: call.name, key: kept, count: 1 }
      const limits = repeatThresholds(config, call.name)
      let count = mode === 'window' ? 0 : chain.count
      let counter: RepeatGuardCounter = 'chain'
      if (mode !== 'chain') {
        const recent = [...windows[call.name] ?? [], kept].slice(-limits.window)
        windows[call.name] = recent
        const inWindow = recent.filter(seen => seen === kept).length
        if (inWindow > count) {
          count = inWindow
          counter = 'window'
        }
      }

      if (count >= limits.abort) {
        const reason = abortReason(call.name, count, counter)
        report(call, key, count, limits.abort, 'abort', counter, reason)
        decisions[index] = { type: 'abort', reason }
        break
      }
      // A refusal an earlier gate made keeps its own reason; the guard only escalates to the abort.
      if (refused || count < limits.block)
        continue
      const message = messageOf(config, call.name, count)
      if (steerAtThreshold) {
        steer[call.callId] = message
        report(call, key, count, limits.block, 'steer', counter, message)
      }
      else {
        report(call, key, count, limits.block, 'block', counter, message)
        decisions[index] = { type: 'block', reason: message }
      }
    }
    return { decisions, state: { chain, windows, global, steer }, events }
  },
  // The notes are read here and left in place: copying the map to drop each one cost a copy per result (and the
  // runner checks every new state whole), so a batch of 8,000 steered calls took 41 s. The turn's end clears them.
  result({ state, call, result, isError }) {
    const note = Object.hasOwn(state.steer, call.callId) ? state.steer[call.callId] : undefined
    if (note === undefined)
      return
    return { decision: { type: 'replace', result: appendNote(result, note), isError } }
  },
  afterTurn({ state }) {
    return Object.keys(state.steer).length === 0 ? undefined : { state: mergeObjects(state, { steer: {} }) }
  },
}
