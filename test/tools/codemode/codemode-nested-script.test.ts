import { describe, expect, it } from 'vitest'
import { runCodemode } from './helpers'

// A script that starts a script holds its worker while the child runs: nine levels held all eight workers of the
// pool, and every codemode call in the process then waited until the outer time limit.

describe('codemode called from a script', () => {
  it('is refused with an error the script can catch, and the inner script never runs', async () => {
    const code = 'try { return await callTool("codemode", { code: "await tools.lookup({ id: 1 }); return 7" }) } catch (e) { return [e.message, e.tool] }'
    const { text, lookup, result } = await runCodemode(code)
    expect(lookup.runs()).toBe(0)
    expect(text).toMatch(/^Returned: \["Error: codemode was not run: a script cannot start another script/)
    expect(result.calls?.map(call => [call.name, call.isError])).toEqual([['codemode', true]])
  })

  it('nine nested levels end at once instead of holding the pool until the time limit', async () => {
    let code = 'return "bottom reached"'
    for (let i = 0; i < 9; i++)
      code = `return await callTool("codemode", { code: ${JSON.stringify(code)} })`
    const started = Date.now()
    const { text } = await runCodemode(code, { behavior: { codemode: { timeoutMs: 12_000 } } })
    expect(text).toMatch(/codemode was not run: a script cannot start another script/)
    expect(text).not.toContain('bottom reached')
    expect(Date.now() - started).toBeLessThan(8_000)
    // The pool is free: another script runs.
    expect((await runCodemode('return 1 + 1')).text).toBe('Returned: 2')
  }, 30_000)
})
