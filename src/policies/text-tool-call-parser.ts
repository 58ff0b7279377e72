/**
 * Finds a tool call a model wrote into its reply text instead of making it
 * through the provider's tool-calling interface. Recognized shapes:
 *
 * - a tag pair `<tool_call>…</tool_call>` (also `<function_call>`, `<tool_use>`),
 *   the form many open-weight chat templates train on;
 * - `<function=NAME>…</function>`;
 * - `<invoke name="NAME">`, the XML form of function-call transcripts;
 * - a JSON object that is the whole reply or a whole fenced code block, with a
 *   string `name` and an object (or JSON string) `arguments` / `parameters` /
 *   `input`, or OpenAI's `{ "type": "function", "function": { "name", "arguments" } }`;
 * - a call expression that is the whole reply or a whole fenced block,
 *   `NAME(key=value, …)` or `NAME({…})` or `NAME()`.
 *
 * The JSON and call-expression shapes count only when NAME is a registered
 * tool, so prose and code samples that merely mention a function do not
 * match. Nothing found here is ever executed.
 */

/** A textual tool call: the tool it names (when the shape names one) and which shape it was. */
export interface TextToolCall {
  readonly name?: string
  readonly shape: 'tag' | 'function-tag' | 'invoke' | 'json' | 'call-expression'
}

const TAG = /<(tool_call|function_call|tool_use)>([\s\S]*?)(?:<\/\1>|$)/
const FUNCTION_TAG = /<function=([\w.-]+)>/
const INVOKE = /<invoke\s+name\s*=\s*["']([\w.-]+)["']/
const FENCE = /```[\w-]*[ \t]*\n([\s\S]*?)\n?```/g
const CALL_EXPRESSION = /^([A-Z_][\w.-]*)\(([\s\S]*)\)$/i
const KEYWORD_ARGUMENTS = /^\s*(?:\{|[A-Z_]\w*\s*[=:])/i

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  }
  catch {
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hasArguments(value: Record<string, unknown>): boolean {
  return ['arguments', 'parameters', 'input'].some((key) => {
    const args = value[key]
    return isObject(args) || (typeof args === 'string' && isObject(parseJson(args)))
  })
}

/**
 * `{ "type": "function", "function": … }` wrappers followed before giving up. OpenAI's shape has one; the
 * model writes the text, so a chain of 100,000 must neither recurse nor be walked to its end.
 */
const MAX_FUNCTION_WRAPPERS = 4

/** The tool a JSON call object names, if it is one. */
function jsonCallName(value: unknown): string | undefined {
  let call = Array.isArray(value) ? value[0] : value
  for (let wrappers = 0; isObject(call) && call.type === 'function' && isObject(call.function); wrappers++) {
    if (wrappers === MAX_FUNCTION_WRAPPERS)
      return undefined
    call = call.function
  }
  if (!isObject(call))
    return undefined
  return typeof call.name === 'string' && hasArguments(call) ? call.name : undefined
}

/** Whether the parentheses of `inner` close only at its end (so `f(a) and g(b)` is not one call). */
function balanced(inner: string): boolean {
  let depth = 0
  let quote: string | undefined
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i]
    if (quote) {
      if (char === '\\')
        i++
      else if (char === quote)
        quote = undefined
    }
    else if (char === '"' || char === '\'') {
      quote = char
    }
    else if (char === '(') {
      depth++
    }
    else if (char === ')' && --depth < 0) {
      return false
    }
  }
  return depth === 0 && quote === undefined
}

/** Whole-reply or whole-fenced-block candidates, trimmed. */
function standaloneBlocks(text: string): string[] {
  const blocks = [text.trim()]
  for (const match of text.matchAll(FENCE)) blocks.push(match[1].trim())
  return blocks.filter(block => block !== '')
}

/**
 * The first textual tool call in `text`, or `undefined`. `isTool` says
 * whether a name is a registered tool.
 */
export function findTextToolCall(text: string, isTool: (name: string) => boolean): TextToolCall | undefined {
  const tag = TAG.exec(text)
  if (tag) {
    const name = jsonCallName(parseJson(tag[2].trim()))
    return name === undefined ? { shape: 'tag' } : { name, shape: 'tag' }
  }
  const functionTag = FUNCTION_TAG.exec(text)
  if (functionTag)
    return { name: functionTag[1], shape: 'function-tag' }
  const invoke = INVOKE.exec(text)
  if (invoke)
    return { name: invoke[1], shape: 'invoke' }
  for (const block of standaloneBlocks(text)) {
    if (block.startsWith('{') || block.startsWith('[')) {
      const name = jsonCallName(parseJson(block))
      if (name !== undefined && isTool(name))
        return { name, shape: 'json' }
      continue
    }
    const call = CALL_EXPRESSION.exec(block)
    if (call && isTool(call[1]) && (call[2].trim() === '' || (KEYWORD_ARGUMENTS.test(call[2]) && balanced(call[2]))))
      return { name: call[1], shape: 'call-expression' }
  }
  return undefined
}
