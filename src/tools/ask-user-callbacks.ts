/**
 * The host callback behind each `ask_user` tool, kept by tool definition, so
 * other questions for the user (an MCP server's elicitation) reach the same
 * UI. Apart from the tool itself so that reading it loads neither the
 * built-in tools nor zod.
 */

/** How the host asks its user a question and returns the answer. */
export type AskUserCallback = (question: string, options: { options?: readonly string[], signal: AbortSignal }) => Promise<string>

const callbacks = new WeakMap<object, AskUserCallback>()

/** Remember `askUser` as the callback of the `ask_user` tool `def`. */
export function rememberAskUserCallback(def: object, askUser: AskUserCallback): void {
  callbacks.set(def, askUser)
}

/** The host callback of an `ask_user` tool made by `createAskUserTool`, else undefined. */
export function askUserCallbackOf(def: unknown): AskUserCallback | undefined {
  return def && typeof def === 'object' ? callbacks.get(def) : undefined
}
