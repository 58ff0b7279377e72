import type { SessionTurn } from '../../core/content'
import type { ToolOutput } from '../../core/tool-io'
import type { ToolSpec } from '../../providers/types'
import type { BehaviorPolicy, PolicyToolsView } from '../policy'
import { mergeObjects } from '../../core/merge-objects'
import { CODEMODE_TOOL_NAME, codemodeCatalog, codemodeFor, createCodemodeTool, describeOn, describeOnly, locateQuickJs } from '../../tools/codemode'
import { directCallNote, noteCountIn, takesNote } from './direct-call-notes'

/** How many notes each tool got in this run, counted from the conversation on first use. */
export interface CodemodeState {
  readonly notes: Readonly<Record<string, number>>
}

interface Declared {
  /** Wire names of the tools declared for scripts. */
  readonly names: ReadonlySet<string>
  readonly notes: boolean
}

/**
 * What an `'only'` codemode tool declared for scripts, by the tool's input
 * schema object: the one part of its spec every copy shares (an alias copies
 * the spec under another name), so the phases find it from the wire specs.
 */
const declaredBySchema = new WeakMap<object, Declared>()

function declaredIn(specs: readonly ToolSpec[], tools: PolicyToolsView): Declared | undefined {
  for (const spec of specs) {
    if (tools.toCanonical(spec.name) === CODEMODE_TOOL_NAME)
      return declaredBySchema.get(spec.inputSchema)
  }
  return undefined
}

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
  enabled: (_behavior, run) => declaredIn(run.tools.specs, run.tools) !== undefined,
  initialState: () => ({ notes: {} }),

  tools(behavior, plan) {
    const settings = codemodeFor(behavior, plan.tools, plan.replaced)
    if (!settings)
      return undefined
    // Fails before the first turn, with the install to run, when the peer is missing.
    locateQuickJs()
    const catalog = codemodeCatalog(plan.tools, plan.aliases, plan.deferred)
    const only = settings.mode === 'only'
    const description = only ? describeOnly(settings, catalog) : describeOn(settings)
    const tool = createCodemodeTool({ settings, catalog, description, load: plan.load })
    if (only)
      declaredBySchema.set(tool.spec.inputSchema, { names: new Set(catalog.map(entry => entry.wireName)), notes: settings.directCallNotes })
    return { [CODEMODE_TOOL_NAME]: tool }
  },

  request({ run, request }) {
    const declared = declaredIn(request.tools, run.tools)
    if (!declared)
      return
    const tools = request.tools.filter(spec => !declared.names.has(spec.name))
    return tools.length === request.tools.length ? undefined : { decision: { tools } }
  },

  result({ call, result, isError, state, run }) {
    const declared = declaredIn(run.tools.specs, run.tools)
    if (!declared?.notes || isError || call.parentToolCallId !== undefined || !declared.names.has(call.displayName) || !takesNote(call.name, result))
      return
    const given = state.notes[call.displayName] ?? noteCountIn(run.turns as readonly SessionTurn[], call.displayName)
    if (given >= MAX_DIRECT_CALL_NOTES)
      return { state: { notes: mergeObjects(state.notes, { [call.displayName]: given }) } }
    const noted: ToolOutput = `${result as string}\n\n${directCallNote(call.displayName)}`
    return { decision: { type: 'replace', result: noted }, state: { notes: mergeObjects(state.notes, { [call.displayName]: given + 1 }) } }
  },
}
