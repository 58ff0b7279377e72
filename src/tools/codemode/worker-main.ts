import type { Deferred, JSValueHandle, QuickJS } from 'quickjs-wasi'
import type { DoneMessage, FromWorker, ReplyMessage, RunMessage, ScriptEnd, StopReasonCode, ToWorker } from './worker-protocol'

/** What a sandbox worker starts from. */
export interface WorkerBoot {
  readonly port: { on: (event: 'message', listener: (message: ToWorker) => void) => void, postMessage: (message: FromWorker) => void }
  readonly quickjs: typeof import('quickjs-wasi')
  readonly wasm: WebAssembly.Module
}

/**
 * The body of a sandbox worker thread: one script at a time, each in a fresh
 * VM that is disposed when the script ends. The worker is started from this
 * function's source text (`Function.prototype.toString`), so it refers to
 * nothing outside itself; its imports are handed in as `boot`.
 *
 * Guest values never leave the VM: host functions read strings only, and the
 * host sends back JSON text that the prelude's own `JSON.parse` turns into
 * guest values. A busy script is stopped by the interrupt handler, which
 * reads a flag the host thread sets (and the deadline); an idle one (waiting
 * on a nested call) by a `stop` message.
 */
export function sandboxWorkerMain(boot: WorkerBoot): void {
  const { QuickJS, Intrinsics, MAX_STACK_SIZE } = boot.quickjs
  const port = boot.port
  // Without WeakRef and `performance`: no observable GC, no fine timer.
  const intrinsics = Intrinsics.ALL & ~Intrinsics.WEAK_REF & ~Intrinsics.PERFORMANCE
  let current: ScriptRun | undefined

  port.on('message', (message) => {
    if (message.type === 'run')
      void start(message)
    else if (current && message.id === current.id)
      current.handle(message)
  })
  port.postMessage({ type: 'ready', id: 0 })

  async function start(message: RunMessage): Promise<void> {
    const run = new ScriptRun(message)
    current = run
    await run.begin()
  }

  function cut(text: string, max: number): string {
    if (text.length <= max)
      return text
    const code = text.charCodeAt(max - 1)
    return text.slice(0, code >= 0xD800 && code <= 0xDBFF ? max - 1 : max)
  }

  function lineOf(stack: string, file: string): number | undefined {
    const at = stack.indexOf(`${file}:`)
    if (at < 0)
      return undefined
    let line = 0
    for (let i = at + file.length + 1; i < stack.length && i < at + file.length + 11; i++) {
      const digit = stack.charCodeAt(i) - 48
      if (digit < 0 || digit > 9)
        break
      line = line * 10 + digit
    }
    return line > 0 ? line : undefined
  }

  /** A string the guest passed, refused when longer than `max` before a character of it is copied out of the VM. */
  function readString(handle: JSValueHandle | undefined, max: number, what: string): string {
    if (!handle || !handle.isString)
      throw new TypeError(`${what} must be a string`)
    if (handle.length > max)
      throw new RangeError(`${what} is longer than ${max} characters`)
    return handle.toString()
  }

  class ScriptRun {
    readonly id: number
    private vm: QuickJS | undefined
    private internals: { start: JSValueHandle, parse: JSValueHandle, makeError: JSValueHandle, slice: JSValueHandle } | undefined
    private readonly pending = new Map<number, Deferred>()
    private seq = 0
    /** Nested requests sent to the host, and the characters of their arguments. */
    private calls = 0
    private argumentChars = 0
    private readonly printed: string[] = []
    private printedChars = 0
    private droppedLines = 0
    private progressSent = 0
    private valueCut = false
    private outcome: ScriptEnd | undefined
    private stopped: StopReasonCode | undefined
    private finished = false
    private readonly flag: Int32Array
    private readonly began = Date.now()
    private startMs = 0

    constructor(private readonly message: RunMessage) {
      this.id = message.id
      this.flag = new Int32Array(message.flag)
    }

    async begin(): Promise<void> {
      const { message } = this
      try {
        const flag = this.flag
        const deadline = message.deadline
        this.vm = await QuickJS.create({
          wasm: boot.wasm,
          memoryLimit: message.memoryLimit,
          maxStackSize: MAX_STACK_SIZE,
          intrinsics,
          interruptHandler: () => Atomics.load(flag, 0) !== 0 || Date.now() > deadline,
        })
        this.startMs = Date.now() - this.began
        if (this.finished) {
          this.vm.dispose()
          this.vm = undefined
          return
        }
        if (this.stopped !== undefined || Atomics.load(flag, 0) !== 0) {
          this.finish({ kind: 'stopped', reason: this.stopped ?? (Atomics.load(flag, 0) === 2 ? 2 : 1) })
          return
        }
        this.install()
        const vm = this.vm
        const script = vm.evalCode(message.script, message.scriptFile)
        const started = vm.callFunction(this.internals!.start, vm.undefined, script)
        started.dispose()
        script.dispose()
        this.drive()
      }
      catch (error) {
        this.fail(error)
      }
    }

    handle(message: ToWorker): void {
      if (this.finished)
        return
      if (message.type === 'stop') {
        this.stopped = message.reason
        this.finish({ kind: 'stopped', reason: message.reason })
      }
      else if (message.type === 'reply') {
        this.reply(message)
      }
    }

    /** Define the host functions and run the prelude, before any script code. */
    private install(): void {
      const vm = this.vm!
      const { message } = this
      const host = vm.newObject()
      const add = (name: string, fn: (...args: JSValueHandle[]) => JSValueHandle) => {
        const handle = vm.newFunction(name, fn)
        vm.setProp(host, name, handle)
        handle.dispose()
      }
      add('call', (kind, name, input, stack) => {
        const kindText = readString(kind, 16, 'kind')
        if (kindText !== 'tool' && kindText !== 'search' && kindText !== 'describe')
          throw new TypeError('unknown call kind')
        const nameText = readString(name, 256, 'A tool name')
        if (!input || !input.isString)
          throw new TypeError('A call\'s arguments must be JSON text')
        const line = lineOf(this.readUpTo(stack, 1 << 16).text, message.scriptFile)
        // Refused here, before anything is sent, so a script looping on calls past its limits costs the host
        // nothing. The refusal is a string the prelude turns into the rejection (no guest code runs under this function).
        const inputChars = input.length
        if (inputChars > message.limits.maxArgumentChars)
          return vm.newString(`The arguments of ${nameText} are ${inputChars} characters of JSON; a call's arguments may be at most ${message.limits.maxArgumentChars}.`)
        const inputText = input.toString()
        if (this.calls >= message.maxCalls)
          return vm.newString(`A script may make at most ${message.maxCalls} calls.`)
        if (this.argumentChars + inputText.length > message.limits.maxArgumentTotalChars)
          return vm.newString(`A script's calls may pass at most ${message.limits.maxArgumentTotalChars} characters of arguments in all; this call's ${inputText.length} do not fit.`)
        const deferred = vm.newPromise()
        this.calls++
        this.argumentChars += inputText.length
        const seq = ++this.seq
        this.pending.set(seq, deferred)
        port.postMessage({ type: 'call', id: this.id, seq, kind: kindText, name: nameText, input: inputText, ...(line === undefined ? {} : { line }) })
        return deferred.handle
      })
      add('print', (text, stack) => {
        const line = lineOf(this.readUpTo(stack, 1 << 16).text, message.scriptFile)
        // Only what can still be kept or sent live is copied out: past the print budget, a line is only counted.
        const room = this.printRoom()
        this.print(this.readUpTo(text, room === 0 ? 0 : room + 1).text, line)
        return vm.undefined
      })
      add('done', (kind, text) => {
        const kindText = readString(kind, 16, 'kind')
        if (kindText === 'undefined') {
          this.outcome ??= { kind: 'value' }
        }
        else if (!this.outcome) {
          const value = this.readUpTo(text, message.limits.maxValueChars + 1)
          this.valueCut = value.length > message.limits.maxValueChars
          this.outcome = { kind: 'value', value: { json: kindText === 'json', text: cut(value.text, message.limits.maxValueChars) } }
        }
        return vm.undefined
      })
      add('fail', (name, text, stack) => {
        if (this.outcome)
          return vm.undefined
        const line = lineOf(this.readUpTo(stack, 1 << 16).text, message.scriptFile)
        this.outcome = {
          kind: 'error',
          name: cut(name && name.isString ? this.readUpTo(name, 201).text : 'Error', 200),
          message: cut(this.readUpTo(text, 4001).text, 4000),
          ...(line === undefined ? {} : { line }),
        }
        return vm.undefined
      })
      const prelude = vm.evalCode(message.prelude, 'prelude.js')
      const names = vm.newString(message.names)
      const internals = vm.callFunction(prelude, vm.undefined, host, names)
      prelude.dispose()
      names.dispose()
      host.dispose()
      this.internals = { start: internals.getProp('start'), parse: internals.getProp('parse'), makeError: internals.getProp('makeError'), slice: internals.getProp('slice') }
      internals.dispose()
    }

    /**
     * At most `max` characters of a guest string (`''` for anything else), and
     * its whole length. A longer string is cut inside the VM first, so a
     * script's 50 MB string costs the host `max` characters, not 50 MB.
     */
    private readUpTo(handle: JSValueHandle | undefined, max: number): { text: string, length: number } {
      if (!handle || !handle.isString || max <= 0)
        return { text: '', length: handle && handle.isString ? handle.length : 0 }
      const length = handle.length
      if (length <= max)
        return { text: handle.toString(), length }
      const vm = this.vm!
      const end = vm.newNumber(max)
      const part = vm.callFunction(this.internals!.slice, vm.undefined, handle, end)
      end.dispose()
      const text = part.isString ? part.toString() : ''
      part.dispose()
      return { text, length }
    }

    /** Characters of the next printed line worth copying out: what the print budget, or a live print, still takes. */
    private printRoom(): number {
      const { limits, progress } = this.message
      const kept = Math.max(0, limits.maxPrintChars - this.printedChars)
      const live = progress && this.progressSent < limits.maxProgressEvents ? limits.maxProgressChars : 0
      return Math.max(kept, live)
    }

    private print(text: string, line: number | undefined): void {
      const { limits, progress } = this.message
      if (this.printedChars >= limits.maxPrintChars) {
        this.droppedLines++
      }
      else {
        const kept = cut(text, limits.maxPrintChars - this.printedChars)
        this.printedChars += kept.length + 1
        this.printed.push(kept)
      }
      if (progress && this.progressSent < limits.maxProgressEvents) {
        this.progressSent++
        port.postMessage({ type: 'print', id: this.id, text: cut(text, limits.maxProgressChars), ...(line === undefined ? {} : { line }) })
      }
    }

    private reply(message: ReplyMessage): void {
      const deferred = this.pending.get(message.seq)
      const vm = this.vm
      if (!deferred || !vm)
        return
      this.pending.delete(message.seq)
      try {
        if (message.ok) {
          const text = vm.newString(message.value)
          const value = vm.callFunction(this.internals!.parse, vm.undefined, text)
          text.dispose()
          deferred.resolve(value)
          value.dispose()
        }
        else {
          const text = vm.newString(message.message)
          const tool = vm.newString(message.tool)
          const error = vm.callFunction(this.internals!.makeError, vm.undefined, text, tool, message.blocked ? vm.true : vm.false)
          text.dispose()
          tool.dispose()
          deferred.reject(error)
          error.dispose()
        }
        this.drive()
      }
      catch (error) {
        this.fail(error)
      }
    }

    /** Run the guest's pending jobs, then end the script if it settled or can no longer settle. */
    private drive(): void {
      try {
        this.vm!.executePendingJobs()
      }
      catch (error) {
        this.fail(error)
        return
      }
      if (this.outcome)
        this.finish(this.outcome)
      else if (this.pending.size === 0)
        this.finish({ kind: 'error', name: 'Error', message: 'the script is waiting for a promise that nothing will settle (no tool call is in flight)' })
    }

    /** An exception reached the host: an interrupt, the memory limit, or an uncaught guest error. */
    private fail(error: unknown): void {
      const flag = Atomics.load(this.flag, 0)
      const { name, message, stack } = (error ?? {}) as { name?: unknown, message?: unknown, stack?: unknown }
      const text = typeof message === 'string' ? message : String(error)
      if (flag !== 0 || (name === 'InternalError' && text === 'interrupted')) {
        this.finish({ kind: 'stopped', reason: flag === 2 ? 2 : 1 })
        return
      }
      const isGuest = error instanceof boot.quickjs.JSException
      const line = typeof stack === 'string' ? lineOf(stack, this.message.scriptFile) : undefined
      this.finish({
        kind: 'error',
        name: cut(typeof name === 'string' ? name : 'Error', 200),
        message: cut(text, 4000),
        ...(line === undefined ? {} : { line }),
        ...(text === 'out of memory' ? { memory: true } : {}),
      }, !isGuest)
    }

    private finish(end: ScriptEnd, broken = false): void {
      if (this.finished)
        return
      this.finished = true
      if (current === this)
        current = undefined
      try {
        this.vm?.dispose()
      }
      catch {
        broken = true
      }
      this.vm = undefined
      this.pending.clear()
      const done: DoneMessage = {
        type: 'done',
        id: this.id,
        end,
        printed: this.printed,
        droppedLines: this.droppedLines,
        valueCut: this.valueCut,
        startMs: this.startMs,
        ...(broken ? { broken: true } : {}),
      }
      port.postMessage(done)
    }
  }
}
