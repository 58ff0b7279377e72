/**
 * The guest side of a sandbox: JavaScript run inside each fresh VM before the
 * script. It captures the intrinsics it relies on before any script code
 * runs (a script may patch `JSON`, `Promise.prototype.then`, `Error`, … for
 * itself, never for the prelude), defines the script's globals, and hands
 * back to the host the few functions the host calls into the VM.
 *
 * The host functions it receives take and give strings only: nothing of the
 * host is ever an object inside the VM, and nothing of the VM leaves it but
 * text the host bounds.
 */

/** The file name a script's own frames carry in stack traces: how a call's script line is found. */
export const SCRIPT_FILE = 'script.js'

/** Wrap a script as the body of an async function; its first line stays line 1. */
export function wrapScript(code: string): string {
  return `(async () => {${code}\n})`
}

/**
 * An expression evaluating to `(host, namesJson) => internals`. `host` holds
 * `call(kind, name, argsJson, stack)` (returns a promise the host settles,
 * or the text of a refusal the host made without sending the call),
 * `print(text, stack)`, `done(kind, text)` and `fail(name, message, stack)`;
 * `internals` holds `start(script)`, `parse(json)`, `makeError(message,
 * tool, blocked)` and `slice(text, end)` (the host's way to copy out only the
 * start of a long string).
 */
export const PRELUDE = String.raw`(function (host, namesJson) {
  'use strict'
  const apply = Reflect.apply
  const PromiseCtor = Promise
  const then = PromiseCtor.prototype.then
  const promiseReject = PromiseCtor.reject
  const ErrorCtor = Error
  const StringCtor = String
  const stringSlice = StringCtor.prototype.slice
  const stringify = JSON.stringify
  const parse = JSON.parse
  const defineProperty = Object.defineProperty
  const freeze = Object.freeze
  const create = Object.create
  const ProxyCtor = Proxy
  const hostCall = host.call
  const hostPrint = host.print
  const hostDone = host.done
  const hostFail = host.fail
  const global = globalThis
  // The script line of a call or a print is read from a stack the prelude makes. QuickJS's default stack text
  // holds function names, which the script chooses ("script.js:999", or a whole frame after a line break), and a
  // script's prepareStackTrace would get every frame's function (the prelude's among them) and write any text. So
  // the prelude's own renderer writes each frame as its file and line only, and both settings are then put behind
  // accessors the script cannot change: it reads prepareStackTrace as undefined and stackTraceLimit as the pinned
  // value (a limit of 0 or 2 hid the script's frame). QuickJS keeps the values set before, inside the engine.
  const STACK_FRAMES = 10
  ErrorCtor.prepareStackTrace = function (error, frames) {
    let text = ''
    for (let i = 0; i < frames.length; i++) text += '    at ' + StringCtor(frames[i].getFileName()) + ':' + StringCtor(frames[i].getLineNumber()) + '\n'
    return text
  }
  ErrorCtor.stackTraceLimit = STACK_FRAMES
  defineProperty(ErrorCtor, 'prepareStackTrace', { get() { return undefined }, set() {}, enumerable: false, configurable: false })
  defineProperty(ErrorCtor, 'stackTraceLimit', { get() { return STACK_FRAMES }, set() {}, enumerable: false, configurable: false })

  function here() {
    try { return StringCtor(new ErrorCtor().stack) } catch (error) { return '' }
  }
  function show(value) {
    try {
      if (typeof value === 'string') return value
      if (value === undefined) return 'undefined'
      if (typeof value === 'function') return '[Function]'
      if (typeof value === 'bigint' || typeof value === 'symbol') return StringCtor(value)
      if (value !== null && typeof value === 'object' && value instanceof ErrorCtor) return StringCtor(value.name) + ': ' + StringCtor(value.message)
      const text = stringify(value)
      return text === undefined ? StringCtor(value) : text
    } catch (error) {
      try { return StringCtor(value) } catch (again) { return '[unprintable value]' }
    }
  }
  function printer(prefix) {
    return function () {
      const stack = here()
      let line = prefix
      for (let i = 0; i < arguments.length; i++) line += (i > 0 ? ' ' : '') + show(arguments[i])
      hostPrint(line, stack)
    }
  }
  // Returns the host's promise itself (never through an async function, which would look up a patchable then).
  // A string instead is a refusal the host made without sending the call (past a script's limits).
  function invoke(kind, name, args, stack) {
    try {
      const nameText = StringCtor(name)
      let text = ''
      if (args !== undefined) {
        const json = stringify(args)
        if (json !== undefined) text = json
      }
      const answer = hostCall(kind, nameText, text, stack)
      if (typeof answer === 'string') return apply(promiseReject, PromiseCtor, [makeError(answer, nameText, true)])
      return answer
    }
    catch (error) {
      return apply(promiseReject, PromiseCtor, [error])
    }
  }
  const callTool = function callTool(name, args) { return invoke('tool', name, args, here()) }
  const searchTools = function searchTools(query, limit) { return invoke('search', '', { query: StringCtor(query), limit }, here()) }
  const describeTool = function describeTool(name) { return invoke('describe', name, undefined, here()) }

  const names = parse(namesJson)
  const known = create(null)
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    known[name] = function (args) { return invoke('tool', name, args, here()) }
  }
  freeze(known)
  const tools = new ProxyCtor(known, {
    get(target, key) {
      if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined
      if (key in target) return target[key]
      return function (args) { return invoke('tool', key, args, here()) }
    },
    set() { return false },
    defineProperty() { return false },
    deleteProperty() { return false },
  })
  const console = freeze({ log: printer(''), info: printer(''), debug: printer(''), warn: printer('[warn] '), error: printer('[error] ') })
  const fixed = { tools, callTool, searchTools, describeTool, console }
  for (const key in fixed) defineProperty(global, key, { value: fixed[key], writable: false, enumerable: false, configurable: false })

  // A value with no JSON form (cyclic, a BigInt inside, a getter or toJSON that throws) fails the script, saying why;
  // a function, a symbol or a BigInt returned itself is its string form.
  function finish(value) {
    if (value === undefined) { hostDone('undefined', ''); return }
    if (typeof value === 'bigint') { hostDone('text', show(value)); return }
    let json
    try { json = stringify(value) }
    catch (error) {
      let reason = ''
      let stack = ''
      try { reason = ': ' + show(error) } catch (unreadable) {}
      try { if (error !== null && typeof error === 'object') stack = StringCtor(error.stack) } catch (unreadable) {}
      hostFail('TypeError', 'the return value cannot be written as JSON' + reason, stack)
      return
    }
    if (json === undefined) hostDone('text', show(value))
    else hostDone('json', json)
  }
  function failWith(error) {
    let name = 'Uncaught'
    let message = ''
    let stack = ''
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        name = StringCtor(error.name)
        message = StringCtor(error.message)
        stack = StringCtor(error.stack)
      }
      else {
        message = show(error)
      }
    }
    catch (unreadable) {
      message = 'the thrown value could not be read'
    }
    hostFail(name, message, stack)
  }
  function makeError(message, tool, blocked) {
    const error = new ErrorCtor(message)
    defineProperty(error, 'tool', { value: tool, writable: true, enumerable: true, configurable: true })
    defineProperty(error, 'blocked', { value: blocked, writable: true, enumerable: true, configurable: true })
    return error
  }
  function slice(text, end) { return apply(stringSlice, text, [0, end]) }
  function start(script) {
    let promise
    try { promise = script() } catch (error) { failWith(error); return }
    apply(then, promise, [finish, failWith])
  }
  return { start, parse, makeError, slice }
})`
