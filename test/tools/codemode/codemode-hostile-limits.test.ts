import type { ToolDef } from '../../../src'
import { describe, expect, it } from 'vitest'
import { SANDBOX_LIMITS } from '../../../src/tools/codemode'
import { runCodemode } from './helpers'

// Hostile scripts that used to get past a bound: each test failed, or ran
// into its time limit, before the bound it checks. Results and sizes are
// asserted, never timings.

/** `store { id, text }`: accepts anything, answers a short JSON record. */
const storeTool: ToolDef = {
  spec: { name: 'store', description: 'Store a text under an id.', inputSchema: { type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } }, required: ['id', 'text'] } },
  isConcurrencySafe: true,
  execute: (input: { id: number, text: string }) => JSON.stringify({ id: input.id, stored: input.text.length }),
}

describe('codemode against hostile scripts: bounds', () => {
  it('a stack overflow inside JSON.stringify, JSON.parse or the parser is a RangeError the script catches', async () => {
    // The worker's native stack ran out before QuickJS's own guard: the script failed with an error it could not catch.
    const code = [
      'let deep = {}',
      'for (let i = 0; i < 100000; i++) deep = { deep }',
      'const caught = []',
      'try { await tools.lookup({ id: 1, deep }) } catch (e) { caught.push(e.name) }',
      'try { JSON.parse("[".repeat(1e6)) } catch (e) { caught.push(e.name) }',
      'try { eval("[".repeat(150000)) } catch (e) { caught.push(e.name) }',
      'return caught',
    ].join('\n')
    const { text, lookup, results } = await runCodemode(code, {
      behavior: { codemode: { timeoutMs: 20_000 } },
      after: [{ toolCalls: [{ id: 'next', name: 'codemode', input: { code: 'return (await tools.lookup({ id: 4 })).price' } }] }, { text: 'done' }],
    })
    expect(text).toMatch(/^Returned: \["RangeError","RangeError","(RangeError|SyntaxError)"\]$/)
    expect(lookup.runs()).toBe(1)
    expect(results.find(block => block.callId === 'next')!.output).toBe('Returned: 40')
  }, 30_000)

  it('20,000 prints of a 1 MB line finish: only what is kept is copied out of the VM', async () => {
    // Each print copied its whole line to the host, 20 GB in all: the script ran into its time limit.
    const { text, result } = await runCodemode(
      'const line = "x".repeat(1 << 20); for (let i = 0; i < 20000; i++) console.log(line); return "done"',
      { behavior: { codemode: { timeoutMs: 15_000 } } },
    )
    expect(result.isError).toBeFalsy()
    expect(text).toMatch(/\[\d+ more printed lines left out/)
    expect(text.endsWith('Returned: "done"')).toBe(true)
    expect(text.length).toBeLessThan(SANDBOX_LIMITS.script.maxPrintChars + 500)
  }, 30_000)

  it('the same, streamed live: each progress event stays small', async () => {
    const events: string[] = []
    const { text } = await runCodemode(
      'const line = "x".repeat(1 << 20); for (let i = 0; i < 20000; i++) console.log(line); return "done"',
      {
        behavior: { codemode: { timeoutMs: 15_000, streamProgress: true } },
        hooks: {
          'tool:progress': (ctx) => {
            if (ctx.callId === 'call_c' && ctx.kind === 'print')
              events.push(ctx.text ?? '')
          },
        },
      },
    )
    expect(text.endsWith('Returned: "done"')).toBe(true)
    expect(events.length).toBeGreaterThan(0)
    expect(events.length).toBeLessThanOrEqual(SANDBOX_LIMITS.script.maxProgressEvents)
    for (const event of events)
      expect(event.length).toBeLessThanOrEqual(SANDBOX_LIMITS.script.maxProgressChars + 1)
  }, 30_000)

  it('a script\'s calls pass at most 4 million characters of arguments in all', async () => {
    // Every call is recorded with its arguments: 1000 calls of 1 MB each made a turn the session could not write (the run threw).
    const code = [
      'const text = "y".repeat(900000)',
      'const out = []',
      'for (let i = 0; i < 10; i++) out.push(await tools.store({ id: i, text }).then(r => r.stored, e => [e.blocked, e.tool, e.message]))',
      'return out',
    ].join('\n')
    const { text, result } = await runCodemode(code, { tools: { store: storeTool }, behavior: { codemode: { timeoutMs: 20_000 } } })
    const out = JSON.parse(text.replace(/^Returned: /, '')) as unknown[]
    expect(out.slice(0, 4)).toEqual([900000, 900000, 900000, 900000])
    for (const refused of out.slice(4)) {
      expect(refused).toEqual([true, 'store', expect.stringContaining(`at most ${SANDBOX_LIMITS.script.maxArgumentTotalChars} characters of arguments in all`)])
    }
    const recorded = (result.calls ?? []).reduce((sum, call) => sum + JSON.stringify(call.input).length, 0)
    expect(result.calls).toHaveLength(4)
    expect(recorded).toBeLessThanOrEqual(SANDBOX_LIMITS.script.maxArgumentTotalChars)
  }, 30_000)

  it('hostile arguments: too long, or nested too deep, are refused like a model\'s call (blocked, with the tool\'s name)', async () => {
    // Arguments over 1 MB of JSON threw a bare RangeError, without `tool` or `blocked`.
    const code = [
      'const out = []',
      'await tools.greet({ name: "x".repeat(2e6) }).catch(e => out.push([e.blocked, e.tool, e.message]))',
      'let deep = {}',
      'for (let i = 0; i < 150; i++) deep = { deep }',
      'await tools.greet({ name: "x", deep }).catch(e => out.push([e.blocked, e.tool, e.message.slice(0, 80)]))',
      'return out',
    ].join('\n')
    const { text, result } = await runCodemode(code)
    expect(JSON.parse(text.replace(/^Returned: /, ''))).toEqual([
      [true, 'greet', `The arguments of greet are 2000011 characters of JSON; a call's arguments may be at most ${SANDBOX_LIMITS.script.maxArgumentChars}.`],
      [true, 'greet', 'Invalid arguments for greet: arguments are nested more than 100 levels deep (obj'],
    ])
    // The deep call reached the pipeline and was refused there (recorded, not run); the long one never left the sandbox.
    expect(result.calls?.map(call => [call.name, call.isError])).toEqual([['greet', true]])
  })

  it('100,000 calls in a loop and 10,000 at once: 1000 run, the rest are refused in the script', async () => {
    const code = [
      'let ok = 0',
      'let refused = 0',
      'for (let i = 0; i < 100000; i++) { try { await tools.lookup({ id: i }); ok++ } catch (e) { if (e.blocked) refused++ } }',
      'const all = await Promise.allSettled(Array.from({ length: 10000 }, (_, i) => tools.lookup({ id: i })))',
      'return [ok, refused, all.filter(r => r.status === "rejected" && r.reason.blocked).length]',
    ].join('\n')
    const { text, lookup } = await runCodemode(code, { behavior: { codemode: { timeoutMs: 20_000 } } })
    expect(text).toBe('Returned: [1000,99000,10000]')
    expect(lookup.runs()).toBe(1000)
  }, 30_000)

  it('a return value with no JSON form is an error saying why; a BigInt, a function or a symbol is its string form', async () => {
    // Before, a cyclic value read `Returned: [object Object]`.
    const cases: [string, string][] = [
      ['const a = { n: 1 }; a.self = a; return a', 'Error: TypeError: the return value cannot be written as JSON: TypeError: circular reference'],
      ['return { total: 10n }', 'Error: TypeError: the return value cannot be written as JSON: TypeError: BigInt are forbidden in JSON.stringify'],
      ['return { get x() { throw new RangeError("no") } }', 'Error: TypeError: the return value cannot be written as JSON: RangeError: no (line 1)'],
      ['return { toJSON() { throw { get message() { throw 1 }, toString() { throw 2 } } } }', 'Error: TypeError: the return value cannot be written as JSON: [unprintable value]'],
      ['return 2n ** 70n', 'Returned: 1180591620717411303424'],
      ['return () => 1', 'Returned: [Function]'],
      ['return Symbol("s")', 'Returned: Symbol(s)'],
    ]
    for (const [code, expected] of cases) {
      const { text } = await runCodemode(code)
      expect(text).toBe(expected)
    }
  }, 30_000)

  it('a script past its memory limit fails, and the next script of the run works', async () => {
    const oom = (id: string, code: string) => ({ toolCalls: [{ id, name: 'codemode', input: { code } }] })
    const { text, results } = await runCodemode('let s = "x"; for (;;) s += s + s', {
      behavior: { codemode: { memoryLimitBytes: 16 * 1024 * 1024 } },
      after: [
        oom('array', 'const a = new Array(1e9).fill(0); return a.length'),
        oom('buffer', 'return new ArrayBuffer(2 ** 30).byteLength'),
        oom('next', 'return [1, 2, 3].map(x => x * 2)'),
        { text: 'done' },
      ],
    })
    expect(text).toMatch(/^Error: InternalError: (out of memory|string too long)/)
    for (const id of ['array', 'buffer'])
      expect(results.find(block => block.callId === id)!.output).toMatch(/^Error: (InternalError|RangeError): /)
    expect(results.find(block => block.callId === 'next')!.output).toBe('Returned: [2,4,6]')
  }, 30_000)
})
