import type { ApprovalDecision } from '../core/run-state'
import type { ToolHookContext } from '../hooks/hook-map'
import type { CallDecision, GatedCall } from '../policies/policy'
import type { ToolCall } from '../providers/types'
import type { DurableToolDef, ToolDef, ToolEnvelopeTarget } from '../tools/types'
import type { NestedCallLog } from './nested-call-log'
import type { RunContext } from './run-context'
import { mergeObjects } from '../core/merge-objects'
import { invalidToolInput } from '../providers/tool-json'
import { quoteClipped } from '../text/clip-echo'
import { errorMessage } from './call-answer'
import { toolHookContext } from './hook-contexts'

/**
 * Where a call comes from. A model's call has only its turn; a nested call
 * (`ToolContext.callTool`) also names the call whose tool made it, how deep it
 * sits, and the signal it answers to.
 */
export interface CallOrigin {
  readonly turnId: string
  readonly nested?: NestedOrigin
}

export interface NestedOrigin {
  /** Id of the call whose tool made this one (`parentToolCallId` on its hooks). */
  readonly parentToolCallId: string
  /** The calling script's line, when the caller tracks lines (`scriptLine` on its hooks). */
  readonly line?: number
  /** 1 for a call made by a tool the model called, 2 for one made under that, … */
  readonly level: number
  /** Aborted with the run, by the caller's own signal, or when the calling tool finishes. */
  readonly signal: AbortSignal
}

/** A call resolved to its tool, before any gate has seen it. */
export interface PreparedCall {
  base: ToolHookContext
  def?: ToolDef
  safe: boolean
  /** Set when the call is answered with this error before any hook runs. */
  refusal?: string
  /** What the policies' batch gate decided for this call. */
  decided?: CallDecision
  /** The call as the model made it, when an envelope (`call_tool`) was opened to reach the tool. */
  envelope?: { name: string, input: Record<string, unknown> }
  /** A host's approval decision made before the call reached the approval step (a suspended call continued). */
  approval?: ApprovalDecision
  /** The signal the call answers to: the run's for a model's call, its own for a nested one. */
  signal: AbortSignal
  /** How deep the call is nested (0 for a call the model made). */
  level: number
  /** Where the nested calls made under this call are recorded (the model's call they all belong to). */
  log: NestedCallLog
}

/**
 * Resolve the tool a call names, as the model names tools: a canonical name
 * or a wire name (alias, MCP wire name), with a lazily disclosed tool refused
 * until it is loaded. An envelope (`call_tool`) is opened here, so everything
 * after sees the inner tool under its own name and input; the result still
 * answers the envelope's call id.
 */
export function prepareCall(run: RunContext, origin: CallOrigin, call: ToolCall, log: NestedCallLog): PreparedCall {
  const outer = resolveCall(run, origin, call, log)
  if (!outer.def?.unwrap)
    return outer
  const target = openEnvelope(outer.def, call.input)
  if ('error' in target)
    return mergeObjects(outer, { safe: true, refusal: `Invalid arguments for ${outer.base.displayName}: ${target.error}` })
  const inner = resolveCall(run, origin, { id: call.id, name: target.name, input: target.input }, log)
  if (inner.def?.unwrap)
    inner.refusal = `Error: ${inner.base.displayName} cannot be called through ${call.name}.`
  inner.envelope = { name: outer.base.name, input: call.input }
  return inner
}

function resolveCall(run: RunContext, origin: CallOrigin, call: ToolCall, log: NestedCallLog): PreparedCall {
  const name = run.tools.toCanonical(call.name)
  const def = run.tools.get(name)
  // A call to no tool is shown by the name the model wrote, not the form the wire sends it back under.
  const base = toolHookContext(run, origin.turnId, call, name, def ? run.tools.toWire(name) : name, origin.nested)
  if ((def as DurableToolDef | undefined)?.runsNestedAgent === true)
    base.runsNestedAgent = true
  const refusal = def ? run.tools.refusal(name) : undefined
  const nested = origin.nested
  return {
    base,
    def,
    safe: def && !refusal ? isConcurrencySafe(def, call.input) : true,
    refusal,
    signal: nested ? nested.signal : run.signal,
    level: nested ? nested.level : 0,
    log,
  }
}

function openEnvelope(def: ToolDef, input: Record<string, unknown>): ToolEnvelopeTarget {
  const unparsed = invalidToolInput(input)
  if (unparsed)
    return { error: unparsed.error }
  try {
    return def.unwrap!(input)
  }
  catch (error) {
    return { error: errorMessage(error) }
  }
}

function isConcurrencySafe(def: ToolDef, input: Record<string, unknown>): boolean {
  const flag = def.isConcurrencySafe
  if (typeof flag !== 'function')
    return flag === true
  try {
    return flag(input) === true
  }
  catch {
    return false
  }
}

/** What the policies' gates see of a call. */
export function gatedCall(base: ToolHookContext): GatedCall {
  const call = { callId: base.callId, name: base.name, displayName: base.displayName, input: base.input }
  return base.parentToolCallId === undefined ? call : mergeObjects(call, { parentToolCallId: base.parentToolCallId })
}

export function unknownToolMessage(run: RunContext, called: string): string {
  const available = run.tools.specs.map(spec => spec.name)
  // A model may write a name of megabytes: the refusal repeats its start.
  const shown = quoteClipped(called)
  return available.length > 0
    ? `Error: there is no tool named ${shown}. Available tools: ${available.join(', ')}.`
    : `Error: there is no tool named ${shown}; this run has no tools.`
}
