import { describe, expect, it } from 'vitest'
import { runCodemode } from './helpers'

// Scripts that try to leave the sandbox, reach the host, or take it down.
// Each must come back as an ordinary result (a value or an error the model
// reads) with nothing of the host reachable, within its limits.

interface Attempt {
  readonly title: string
  readonly code: string
  /** The whole text the model reads, or a check of it. */
  readonly expect: string | RegExp
}

/** Attempts meant to run into the time limit get 400 ms; the others get room to finish on a loaded machine. */
function limitsFor(attempt: Attempt) {
  const timed = String(attempt.expect).includes('400 ms')
  return { codemode: { timeoutMs: timed ? 400 : 20_000, memoryLimitBytes: 16 * 1024 * 1024 } }
}

const attempts: Attempt[] = [
  { title: 'process, require and module globals', code: 'return [typeof process, typeof require, typeof module, typeof exports, typeof Buffer, typeof global]', expect: 'Returned: ["undefined","undefined","undefined","undefined","undefined","undefined"]' },
  { title: 'network', code: 'return [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof navigator]', expect: 'Returned: ["undefined","undefined","undefined","undefined"]' },
  { title: 'timers, string or not', code: 'return [typeof setTimeout, typeof setInterval, typeof setImmediate, typeof queueMicrotask === "function"]', expect: 'Returned: ["undefined","undefined","undefined",true]' },
  { title: 'QuickJS std and os modules', code: 'return [typeof std, typeof os, typeof scriptArgs, typeof print]', expect: 'Returned: ["undefined","undefined","undefined","undefined"]' },
  { title: 'dynamic import()', code: 'try { await import("node:fs"); return "imported" } catch (e) { return "refused: " + e.name }', expect: /^Returned: "refused: (ReferenceError|TypeError|SyntaxError)"$/ },
  { title: 'static import', code: 'import fs from "fs"', expect: /^Error: SyntaxError: / },
  { title: 'Function constructor', code: 'const g = Function("return this")(); return [typeof g.process, typeof g.require, g === globalThis]', expect: 'Returned: ["undefined","undefined",true]' },
  { title: 'async and generator function constructors', code: 'const A = (async () => {}).constructor; const G = (function* () {}).constructor; return [await A("return typeof process")(), G("yield typeof require")().next().value]', expect: 'Returned: ["undefined","undefined"]' },
  { title: 'eval', code: 'return eval("typeof process + typeof require")', expect: 'Returned: "undefinedundefined"' },
  { title: 'constructor chains from the injected globals', code: 'return [tools.constructor.constructor("return typeof process")(), console.log.constructor("return typeof require")(), typeof callTool.constructor("return this")().process]', expect: 'Returned: ["undefined","undefined","undefined"]' },
  { title: 'host functions are not reachable from the global object', code: 'return Object.getOwnPropertyNames(globalThis).filter(name => /host|^call$|^print$|^done$|^fail$|__/.test(name))', expect: 'Returned: []' },
  { title: 'a tool result is a plain guest value', code: 'const r = await tools.lookup({ id: 2 }); return [Object.getPrototypeOf(r) === Object.prototype, r.constructor.constructor("return typeof process")(), typeof r.toString]', expect: 'Returned: [true,"undefined","function"]' },
  { title: 'a rejection carries a guest Error only', code: 'try { await tools.fail_tool({}) } catch (e) { return [e instanceof Error, e.constructor.constructor("return typeof process")(), Object.keys(e)] }', expect: 'Returned: [true,"undefined",["tool","blocked"]]' },
  { title: 'functions in arguments never reach a tool', code: 'try { await tools.greet({ name: () => "x" }) } catch (e) { return [e.tool, e.blocked] }', expect: 'Returned: ["greet",true]' },
  { title: '__proto__ in arguments does not pollute the host', code: 'return (await tools.lookup(JSON.parse(\'{"__proto__": {"polluted": "yes"}, "id": 3}\'))).price', expect: 'Error: Error: Invalid arguments for lookup: __proto__: is not an allowed property' },
  { title: 'patched intrinsics do not break the prelude', code: 'Promise.prototype.then = function () { return this }; Error = function () {}; JSON.parse = () => ({ forged: true }); const r = await tools.lookup({ id: 1 }); return r.price', expect: 'Returned: 10' },
  { title: 'stack exhaustion', code: 'function f() { return f() + 1 } try { f() } catch (e) { return e.name + ": " + e.message }', expect: 'Returned: "RangeError: Maximum call stack size exceeded"' },
  { title: 'memory exhaustion', code: 'const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length)', expect: /out of memory \(the script's memory limit is 16 MiB\)/ },
  { title: 'one huge allocation', code: 'const b = new ArrayBuffer(2 ** 31); return b.byteLength', expect: /^Error: (RangeError|InternalError): / },
  { title: 'an infinite loop', code: 'for (;;) {}', expect: 'Error: the script was stopped by its time limit (400 ms).' },
  { title: 'an infinite loop that catches everything', code: 'for (;;) { try { for (;;) {} } catch (e) {} }', expect: 'Error: the script was stopped by its time limit (400 ms).' },
  { title: 'a promise storm', code: 'for (;;) Promise.resolve().then(() => {})', expect: /^Error: (the script was stopped by its time limit \(400 ms\)\.|InternalError: out of memory)/ },
  { title: 'endless microtasks', code: 'const f = () => Promise.resolve().then(f); f(); await new Promise(() => {})', expect: /^Error: (the script was stopped by its time limit \(400 ms\)\.|InternalError: out of memory)/ },
  { title: 'a promise that never settles', code: 'await new Promise(() => {})', expect: /^Error: Error: the script is waiting for a promise that nothing will settle/ },
  { title: 'a getter that never returns, read while printing', code: 'console.log({ get x() { for (;;) {} } })', expect: 'Error: the script was stopped by its time limit (400 ms).' },
  { title: 'a toJSON that never returns, in the return value', code: 'return { toJSON() { for (;;) {} } }', expect: 'Error: the script was stopped by its time limit (400 ms).' },
  { title: 'Atomics.wait on the VM thread', code: 'const view = new Int32Array(new SharedArrayBuffer(4)); return Atomics.wait(view, 0, 0)', expect: /^Error: / },
  { title: 'a huge printed output', code: 'const line = "z".repeat(10000); for (let i = 0; i < 2000; i++) console.log(line)', expect: /^z{10000}\n[\s\S]*\[\d+ more printed lines left out/ },
  { title: 'a huge return value', code: 'return "q".repeat(5e6)', expect: /^Returned: "q{39999} \[cut at 40000 characters\]$/ },
  { title: 'a thrown non-Error with a hostile toString', code: 'throw { toString() { throw new Error("no") }, get name() { throw 1 } }', expect: /^Error: Uncaught: |^Error: Error: / },
]

describe('the sandbox holds against hostile scripts', () => {
  it('has at least 20 escape attempts', () => {
    expect(attempts.length).toBeGreaterThanOrEqual(20)
  })

  it.each(attempts.map(attempt => [attempt.title, attempt] as const))('%s', async (_title, attempt) => {
    const { text } = await runCodemode(attempt.code, { behavior: limitsFor(attempt) })
    if (typeof attempt.expect === 'string')
      expect(text).toBe(attempt.expect)
    else
      expect(text).toMatch(attempt.expect)
    expect(text.length).toBeLessThan(100_000)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  }, 60_000)

  it('caps the nested calls of one script', async () => {
    const { text, lookup } = await runCodemode(
      'const out = await Promise.all(Array.from({ length: 1500 }, (_, i) => tools.lookup({ id: i }).then(() => "ok", e => e.blocked))); return out.filter(x => x === true).length',
      { behavior: { codemode: { timeoutMs: 60_000 } } },
    )
    expect(text).toBe('Returned: 500')
    expect(lookup.runs()).toBe(1000)
  }, 60_000)
})
