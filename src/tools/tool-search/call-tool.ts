import type { ToolDef, ToolEnvelopeTarget } from '../types'

/** Name of the envelope tool that calls a deferred tool by name. */
export const CALL_TOOL_NAME = 'call_tool'

interface CallToolInput {
  name: string
  arguments?: Record<string, unknown>
}

/**
 * The fixed `call_tool { name, arguments }` envelope of lazy disclosure in
 * `'dispatch'` mode. Its schema never changes, so tools found later do not
 * alter the tools array (and the prompt cache survives). The loop unwraps
 * the envelope before gating and validation, so every hook, check and
 * record sees the inner tool as if it had been called directly.
 */
export function createCallTool(name = CALL_TOOL_NAME): ToolDef<CallToolInput> {
  return {
    spec: {
      name,
      description: 'Run a tool whose schema was loaded with tool_search. Pass its name and its arguments as an object that matches the loaded input schema.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Name of the loaded tool.' },
          arguments: { type: 'object', description: 'Arguments for that tool.' },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
    unwrap: unwrapCallTool,
    execute() {
      // Only reachable when something runs the tool outside the agent loop.
      throw new Error(`${name} only works inside an agent run, which dispatches the tool it names`)
    },
  }
}

/** The inner call of an envelope, or what is wrong with it. Arguments sent as a JSON string are accepted. */
export function unwrapCallTool(input: Record<string, unknown>): ToolEnvelopeTarget {
  const name = input.name
  if (typeof name !== 'string' || name.trim().length === 0)
    return { error: '"name" must be the name of a tool loaded with tool_search' }
  let args = input.arguments ?? {}
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args)
    }
    catch {
      return { error: '"arguments" must be a JSON object' }
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { error: '"arguments" must be a JSON object' }
  return { name: name.trim(), input: args as Record<string, unknown> }
}
