import type { AgentBehavior } from '../knobs/behavior'
import type { BehaviorPolicy, PolicyToolsView } from './policy'
import type { TextToolCall } from './text-tool-call-parser'
import { continueWith } from './policy'
import { findTextToolCall } from './text-tool-call-parser'

/**
 * Rescues in a row (turns that wrote a call as text and made none) before the
 * policy lets the run end: a model that cannot produce a native call after
 * being told twice will not on the third telling, and each rescue re-bills
 * the context.
 */
export const MAX_CONSECUTIVE_TEXT_CALL_RESCUES = 2

function isOn(behavior: Readonly<AgentBehavior>): boolean {
  const value = behavior.textToolCallRescue
  return typeof value === 'object' && value !== null
}

function steerText(found: TextToolCall, tools: PolicyToolsView): string {
  const target = found.name !== undefined && tools.names.includes(tools.toCanonical(found.name)) ? `\`${found.name}\`` : 'the tool'
  const offered = tools.specs.map(spec => spec.name).join(', ')
  return `Your last reply wrote a call to ${target} as text, so nothing ran. `
    + `Tools run only when called through the tool-calling interface: make the call again as a real tool call, not in the reply text.${
      offered === '' ? '' : ` Tools offered: ${offered}.`}`
}

/** Rescues made in a row without a native tool call in between. */
export interface TextToolCallRescueState {
  readonly consecutive: number
}

/**
 * `textToolCallRescue`: a turn that ends with a tool call written into the
 * reply text (`<tool_call>{…}</tool_call>`, a bare `{"name", "arguments"}`
 * object, `read_file(path="a")`, see `text-tool-call-parser.ts`) and no native
 * call would end the run with nothing done. The policy continues the run once
 * with a steer asking for the native call; the text call is never run.
 */
export const textToolCallRescue: BehaviorPolicy<TextToolCallRescueState> = {
  name: 'text-tool-call-rescue',
  enabled: isOn,
  initialState: () => ({ consecutive: 0 }),
  afterTurn({ run, assistant, decided, state }) {
    if (assistant.content.some(block => block.type === 'tool_call'))
      return state.consecutive === 0 ? undefined : { state: { consecutive: 0 } }
    if (decided.ending || decided.continues || state.consecutive >= MAX_CONSECUTIVE_TEXT_CALL_RESCUES)
      return
    const text = assistant.content.map(block => block.type === 'text' ? block.text : '').join('\n')
    const tools = run.tools
    const found = findTextToolCall(text, name => tools.names.includes(tools.toCanonical(name)))
    if (!found)
      return
    return { state: { consecutive: state.consecutive + 1 }, decision: continueWith(steerText(found, tools), 'text-tool-call-rescue') }
  },
}
