import type { SessionTurn } from '../../core/content'
import type { ToolOutput } from '../../core/tool-io'
import type { AgentBehavior } from '../../knobs/behavior'
import type { BehaviorPolicy } from '../policy'
import { CODEMODE_TOOL_NAME, codemodeCatalog, codemodeFor, createCodemodeTool, describeOn, describeOnly, locateQuickJs } from '../../tools/codemode'
import { directCallNote, noteCountIn, takesNote } from './direct-call-notes'

/** How many notes each tool got in this run, counted from the conversation on first use. */
export interface CodemodeState {
  readonly notes: Readonly<Record<string, number>>
}

/** What one run's `'only'` mode declared for scripts (wire names), by the run's behavior object. */
const declaredByRun = new WeakMap<Readonly<AgentBehavior>, { readonly names: ReadonlySet<string>, readonly notes: boolean }>()

/** A direct call of a declared tool gets at most this many notes in a conversation. */
export const MAX_DIRECT_CALL_NOTES = 2

/**
 * `behavior.codemode`: brings the `codemode` tool, whose scripts call the
 * run's other tools from a sandbox (each nested call through
 * `ToolContext.callTool`, so every gate, hook and budget applies). In
 * `'only'` mode the tools scripts can call leave the wire (the request
 * phase), declared inside the tool's description instead, and a direct call
 * of one, which still runs, gets a line naming the script form (the result
 * phase, twice per tool at most).
 */
export const codemode: BehaviorPolicy<CodemodeState> = {
  name: 'codemode',
  // Only 'only' mode has phases; the tool itself is brought whatever this says.
  enabled: behavior => declaredByRun.has(behavior),
  initialState: () => ({ notes: {} }),

  tools(behavior, plan) {
    const settings = codemodeFor(behavior, plan.tools, plan.replaced)
    if (!settings)
      return undefined
    // Fails before the first turn, with the install to run, when the peer is missing.
    locateQuickJs()
    const catalog = codemodeCatalog(plan.tools, plan.aliases, plan.deferred)
    const only = settings.mode === 'only'
    if (only)
      declaredByRun.set(behavior, { names: new Set(catalog.map(entry => entry.wireName)), notes: settings.directCallNotes })
    const description = only ? describeOnly(settings, catalog) : describeOn(settings)
    return { [CODEMODE_TOOL_NAME]: createCodemodeTool({ settings, catalog, description, load: plan.load }) }
  },

  request({ behavior, request }) {
    const declared = declaredByRun.get(behavior)
    if (!declared)
      return
    const tools = request.tools.filter(spec => !declared.names.has(spec.name))
    return tools.length === request.tools.length ? undefined : { decision: { tools } }
  },

  result({ behavior, call, result, isError, state, run }) {
    const declared = declaredByRun.get(behavior)
    if (!declared?.notes || isError || call.parentToolCallId !== undefined || !declared.names.has(call.displayName) || !takesNote(call.name, result))
      return
    const given = state.notes[call.displayName] ?? noteCountIn(run.turns as readonly SessionTurn[], call.displayName)
    if (given >= MAX_DIRECT_CALL_NOTES)
      return { state: { notes: { ...state.notes, [call.displayName]: given } } }
    const noted: ToolOutput = `${result as string}\n\n${directCallNote(call.displayName)}`
    return { decision: { type: 'replace', result: noted }, state: { notes: { ...state.notes, [call.displayName]: given + 1 } } }
  },
}
