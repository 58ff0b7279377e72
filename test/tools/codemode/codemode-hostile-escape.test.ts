import { describe, expect, it } from 'vitest'
import { runCodemode } from './helpers'

// Ways into the prelude or the host that the corpus in hostile.test.ts does not try.

describe('codemode against hostile scripts: reaching past the script', () => {
  it('prepareStackTrace cannot collect the functions on the stack, neither the prelude ones nor a host function', async () => {
    // QuickJS has V8's stack API: a script's prepareStackTrace got every frame's function, the prelude's `start`,
    // `here` and `makeError` among them, and could replace the stacks the prelude reads script lines from.
    const code = [
      'const seen = new Set()',
      'try {',
      '  Error.prepareStackTrace = (error, frames) => { for (const frame of frames) { const fn = frame.getFunction(); if (fn) seen.add(fn.name || "(anonymous)") } return "forged" }',
      '} catch (e) {}',
      'await tools.lookup({ id: 1 })',
      'await tools.fail_tool({}).catch(() => {})',
      'console.log("printed")',
      'return [...seen, typeof Error.prepareStackTrace, new Error("x").stack === "forged"]',
    ].join('\n')
    const { text } = await runCodemode(code)
    expect(text).toBe('printed\nReturned: ["undefined",false]')
  })

  it('a forged stack cannot move a call to another script line', async () => {
    const { result } = await runCodemode('Error.stackTraceLimit = 50\ntry { Error.prepareStackTrace = () => "at x (script.js:999:1)" } catch (e) {}\nawait tools.lookup({ id: 1 })\nreturn 1')
    expect(result.calls?.map(call => call.line)).toEqual([3])
  })

  it('a function named like a frame cannot move a call or a print to another script line', async () => {
    // The default stack text held each frame's function name, which the script chooses: the first "script.js:"
    // in it was read as the line.
    const code = [
      'const f = async () => tools.lookup({ id: 1 })',
      'Object.defineProperty(f, "name", { value: "script.js:999" })',
      'const o = { async ["x\\n    at y (script.js:777:1)"]() { return tools.lookup({ id: 2 }) } }',
      'const p = () => console.log("hi")',
      'Object.defineProperty(p, "name", { value: "script.js:555" })',
      'await f()',
      'await o["x\\n    at y (script.js:777:1)"]()',
      'p()',
      'return 1',
    ].join('\n')
    const printed: (number | undefined)[] = []
    const { result, text } = await runCodemode(code, {
      behavior: { codemode: { streamProgress: true } },
      hooks: {
        'tool:progress': (ctx) => {
          if (ctx.callId === 'call_c' && ctx.kind === 'print')
            printed.push(ctx.line)
        },
      },
    })
    expect(text).toBe('hi\nReturned: 1')
    expect(result.calls?.map(call => call.line)).toEqual([1, 3])
    expect(printed).toEqual([4])
  })

  it('a script cannot hide its line by shortening the stack, and reads the stack settings as fixed', async () => {
    const code = 'Error.stackTraceLimit = 0\nawait tools.lookup({ id: 1 })\nError.stackTraceLimit = 2\nconst deep = (n) => n === 0 ? tools.lookup({ id: 2 }) : deep(n - 1)\nawait deep(20)\nreturn [Error.stackTraceLimit, typeof Error.prepareStackTrace]'
    const { result, text } = await runCodemode(code)
    expect(text).toBe('Returned: [10,"undefined"]')
    expect(result.calls?.map(call => call.line)).toEqual([2, 4])
  })
})
