import type { ToolDef } from '../../../src'
import type { ToolHookContext } from '../../../src/hooks/hook-map'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { createProcessContext } from '../../../src/contexts/process'
import { MissingPeerDependencyError } from '../../../src/errors'
import { createSession } from '../../../src/session'
import { scriptedProvider } from '../../../src/testing'
import { readFile } from '../../../src/tools'
import { locateQuickJs } from '../../../src/tools/codemode'
import { runCodemode } from './helpers'

describe('the codemode tool', () => {
  it('runs a script that calls tools; the model reads what it printed and returned, and the calls are recorded', async () => {
    const before: ToolHookContext[] = []
    const { text, result, lookup, provider } = await runCodemode([
      'let total = 0',
      'for (const id of [1, 2, 3]) {',
      '  const record = await tools.lookup({ id })',
      '  total += record.price',
      '}',
      'console.log("sum of", 3, "records")',
      'return { total, hello: await tools.greet({ name: "Ada" }) }',
    ].join('\n'), { hooks: { 'tool:before': ctx => void before.push({ ...ctx }) } })
    expect(text).toBe('sum of 3 records\nReturned: {"total":60,"hello":"Hello, Ada!"}')
    expect(result.isError).toBeFalsy()
    expect(lookup.runs()).toBe(3)
    expect(result.calls!.map(call => [call.id, call.name, call.input, call.line])).toEqual([
      ['call_c.1', 'lookup', { id: 1 }, 3],
      ['call_c.2', 'lookup', { id: 2 }, 3],
      ['call_c.3', 'lookup', { id: 3 }, 3],
      ['call_c.4', 'greet', { name: 'Ada' }, 7],
    ])
    const nested = before.filter(ctx => ctx.parentToolCallId === 'call_c')
    expect(nested.map(ctx => [ctx.name, ctx.scriptLine])).toEqual([['lookup', 3], ['lookup', 3], ['lookup', 3], ['greet', 7]])
    // 'on' mode: the usual tools stay on the wire next to codemode.
    expect(provider.requests[0].tools!.map(tool => tool.name).sort()).toEqual(['codemode', 'fail_tool', 'greet', 'lookup'])
  })

  it('rejects a failed or refused nested call inside the script with an Error carrying tool and blocked', async () => {
    const { text } = await runCodemode([
      'const seen = []',
      'try { await tools.fail_tool({}) } catch (e) { seen.push([e.message, e.tool, e.blocked]) }',
      'try { await tools.greet({ name: "x" }) } catch (e) { seen.push([e.message, e.tool, e.blocked]) }',
      'try { await callTool("nope", {}) } catch (e) { seen.push([e.tool, e.blocked]) }',
      'return seen',
    ].join('\n'), {
      hooks: {
        'tool:gate': (ctx) => {
          if (ctx.name === 'greet') {
            ctx.block = true
            ctx.reason = 'no greetings today'
          }
        },
      },
    })
    const returned = JSON.parse(text.replace('Returned: ', '')) as unknown[][]
    expect(returned[0]).toEqual(['Error: the tool broke', 'fail_tool', false])
    expect(returned[1][0]).toContain('no greetings today')
    expect(returned[1].slice(1)).toEqual(['greet', true])
    expect(returned[2]).toEqual(['nope', true])
  })

  it('reports an uncaught script error after what the script printed, with its line', async () => {
    const { text, result } = await runCodemode('console.log("before")\n\nnull.x')
    expect(result.isError).toBe(true)
    expect(text).toBe('Error: the script failed. What it printed first:\nbefore\nTypeError: cannot read property \'x\' of null (line 3)')
  })

  it('counts nested calls in the run\'s tool budgets, as direct calls', async () => {
    const { text, lookup } = await runCodemode(
      'const out = []\nfor (const id of [1, 2, 3]) { try { out.push((await tools.lookup({ id })).price) } catch (e) { out.push(e.blocked) } }\nreturn out',
      { behavior: { toolBudgets: { lookup: { max: 2, onExceed: 'block' } } } },
    )
    expect(text).toBe('Returned: [10,20,true]')
    expect(lookup.runs()).toBe(2)
  })

  it('gives each script a fresh VM', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'a', name: 'codemode', input: { code: 'globalThis.leak = 42; Object.prototype.polluted = 1; return typeof leak' } }] },
      { toolCalls: [{ id: 'b', name: 'codemode', input: { code: 'return [typeof globalThis.leak, ({}).polluted]' } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, behavior: { codemode: true } })
    await agent.run({ prompt: 'go' })
    const last = provider.requests[2].messages.at(-1)!
    expect(JSON.stringify(last.content)).toContain('Returned: [\\"undefined\\",null]')
  })

  it('is not injected when run({ tools }) replaces the registry, or the host has its own codemode', async () => {
    const own = { spec: { name: 'codemode', description: 'the host\'s own', inputSchema: { type: 'object' } }, execute: () => 'mine' }
    const first = scriptedProvider([{ text: 'a' }])
    await createAgent({ provider: first, tools: { codemode: own }, behavior: { codemode: true } }).run({ prompt: 'go' })
    expect(first.requests[0].tools!.find(tool => tool.name === 'codemode')!.description).toBe('the host\'s own')
    const second = scriptedProvider([{ text: 'a' }])
    const agent = createAgent({ provider: second, behavior: { codemode: true } })
    await agent.run({ prompt: 'go', tools: { greet: { spec: { name: 'greet', description: 'g', inputSchema: { type: 'object' } }, execute: () => 'hi' } } })
    expect(second.requests[0].tools!.map(tool => tool.name)).toEqual(['greet'])
  })

  it('names the install when quickjs-wasi is missing', () => {
    const missing = (specifier: string): string => {
      throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' })
    }
    let caught: unknown
    try {
      locateQuickJs(missing)
    }
    catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(MissingPeerDependencyError)
    expect((caught as MissingPeerDependencyError).installCommand).toBe('npm install quickjs-wasi')
    expect((caught as Error).message).toContain('behavior.codemode')
  })
})

describe('codemode and the built-in tools', () => {
  it('reads a file from a script without line-number prefixes (a direct read keeps them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-read-'))
    writeFileSync(join(dir, 'notes.txt'), 'alpha\nbeta\n')
    const execution = createProcessContext({ cwd: dir })
    try {
      const provider = scriptedProvider([
        { toolCalls: [{ id: 'direct', name: 'read_file', input: { path: 'notes.txt' } }] },
        { toolCalls: [{ id: 'script', name: 'codemode', input: { code: 'return (await tools.read_file({ path: "notes.txt" })).split("\\n")[1]' } }] },
        { text: 'done' },
      ])
      const session = await createSession()
      await createAgent({ provider, session, execution, tools: { read_file: readFile }, behavior: { codemode: true, dedupReads: false } }).run({ prompt: 'go' })
      const outputs = session.turns.flatMap(turn => turn.content.flatMap(block => block.type === 'tool_result' ? [String(block.output)] : []))
      expect(outputs[0]).toContain('1\talpha')
      expect(outputs[1]).toBe('Returned: "beta"')
    }
    finally {
      await execution.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the order of a script\'s calls', () => {
  /** A tool that notes how many of its calls run at once. */
  function counting(name: string, safe: boolean) {
    let now = 0
    let most = 0
    const def: ToolDef = {
      spec: { name, description: name, inputSchema: { type: 'object' } },
      isConcurrencySafe: safe,
      execute: async () => {
        most = Math.max(most, ++now)
        await new Promise(resolve => setTimeout(resolve, 20))
        now--
        return 'ok'
      },
    }
    return { def, most: () => most }
  }

  it('runs calls of a tool that is not concurrency-safe one at a time, and safe ones together', async () => {
    const write = counting('write', false)
    const read = counting('read', true)
    const { text } = await runCodemode(
      'await Promise.all([1, 2, 3, 4].map(() => tools.write({})))\nawait Promise.all([1, 2, 3, 4].map(() => tools.read({})))\nreturn "done"',
      { tools: { write: write.def, read: read.def } },
    )
    expect(text).toBe('Returned: "done"')
    expect(write.most()).toBe(1)
    expect(read.most()).toBeGreaterThan(1)
  })
})
