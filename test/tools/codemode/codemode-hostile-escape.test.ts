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
})
