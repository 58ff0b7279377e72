import type { ToolDef } from '../../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { createSession } from '../../../src/session'
import { scriptedProvider } from '../../../src/testing'
import { greetTool, lookupTool, runCodemode } from './helpers'

/** A tool shaped like one an MCP server lends (lazily disclosed when `toolDisclosure: 'lazy'`). */
function shopTool(name: string, description: string): ToolDef {
  return {
    spec: { name: `mcp_shop_${name}`, description, inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    mcp: { server: 'shop', tool: name },
    execute: (input: { sku: string }) => JSON.stringify({ sku: input.sku, stock: input.sku.length }),
  }
}

describe('codemode \'only\'', () => {
  it('takes the tools scripts can call off the wire and declares them inside the codemode description', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    await createAgent({ provider, tools: { lookup: lookupTool().def, greet: greetTool }, behavior: { codemode: 'only' } }).run({ prompt: 'go' })
    const tools = provider.requests[0].tools!
    expect(tools.map(tool => tool.name)).toEqual(['codemode'])
    expect(tools[0].description).toContain('- tools.lookup({ id: number }): Look up a record by id.')
    expect(tools[0].description).toContain('- tools.greet({ name: string }): Greet someone by name.')
  })

  it('lists tools past inlineBudget by name only', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    await createAgent({ provider, tools: { lookup: lookupTool().def, greet: greetTool }, behavior: { codemode: { mode: 'only', inlineBudget: 20 } } }).run({ prompt: 'go' })
    const description = provider.requests[0].tools![0].description
    expect(description).not.toContain('tools.greet({')
    expect(description).toContain('More tools (read their arguments with describeTool): ')
  })

  it('drops tool_search and call_tool; scripts find, describe and call lazy tools themselves', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'c', name: 'codemode', input: { code: [
        'const found = await searchTools("stock")',
        'const schema = (await describeTool(found[0].name)).inputSchema',
        'const answer = await tools[found[0].name]({ sku: "abcd" })',
        'return { names: found.map(tool => tool.name), required: schema.required, stock: answer.stock }',
      ].join('\n') } }] },
      { text: 'done' },
    ])
    const session = await createSession()
    await createAgent({
      provider,
      session,
      tools: { stock: shopTool('stock', 'Stock level of a product.'), price: shopTool('price', 'Price of a product.') },
      behavior: { codemode: 'only', toolDisclosure: 'lazy' },
    }).run({ prompt: 'go' })
    expect(provider.requests[0].tools!.map(tool => tool.name)).toEqual(['codemode'])
    // The catalog lists names only (catalog: 'names') and points at the script globals.
    expect(provider.requests[0].system).toContain('- mcp_shop_stock\n')
    expect(provider.requests[0].system).not.toContain('Stock level of a product.')
    expect(provider.requests[0].system).toContain('`await searchTools(query)`')
    const result = JSON.stringify(provider.requests[1].messages.at(-1)!.content)
    expect(result).toContain('Returned: {\\"names\\":[\\"mcp_shop_stock\\"],\\"required\\":[\\"sku\\"],\\"stock\\":4}')
  })

  it('keeps descriptions in the catalog with catalog: \'full\'', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    await createAgent({ provider, tools: { stock: shopTool('stock', 'Stock level of a product.') }, behavior: { codemode: { catalog: 'full' }, toolDisclosure: 'lazy' } }).run({ prompt: 'go' })
    expect(provider.requests[0].system).toContain('- mcp_shop_stock: Stock level of a product.')
  })

  it('notes the script form on a direct call of a declared tool, twice per tool at most', async () => {
    const call = (id: string) => ({ toolCalls: [{ id, name: 'greet', input: { name: id } }] })
    const provider = scriptedProvider([call('a'), call('b'), call('c'), { text: 'done' }])
    const session = await createSession()
    await createAgent({ provider, session, tools: { greet: greetTool }, behavior: { codemode: 'only' } }).run({ prompt: 'go' })
    const outputs = session.turns.flatMap(turn => turn.content.flatMap(block => block.type === 'tool_result' ? [block.output] : []))
    expect(outputs[0]).toMatch(/^Hello, a!\n\n\[codemode\] greet is also callable inside a codemode script as tools\.greet\(args\)/)
    expect(outputs[1]).toMatch(/^Hello, b!\n\n\[codemode\]/)
    expect(outputs[2]).toBe('Hello, c!')
  })

  it('leaves direct results alone with directCallNotes: false, and never notes JSON results', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'a', name: 'greet', input: { name: 'a' } }, { id: 'b', name: 'lookup', input: { id: 1 } }] },
      { text: 'done' },
    ])
    const session = await createSession()
    await createAgent({ provider, session, tools: { greet: greetTool, lookup: lookupTool().def }, behavior: { codemode: { mode: 'only', directCallNotes: false } } }).run({ prompt: 'go' })
    const outputs = session.turns.flatMap(turn => turn.content.flatMap(block => block.type === 'tool_result' ? [block.output] : []))
    expect(outputs).toEqual(['Hello, a!', '{"id":1,"price":10}'])
  })
})

describe('codemode streamProgress', () => {
  it('reports prints and nested calls with their script lines; the model\'s result does not change', async () => {
    const code = 'console.log("start")\nawait tools.greet({ name: "x" })\nreturn 1'
    const seen: { callId: string, kind: string, text?: string, tool?: string, line?: number }[] = []
    const streamed = await runCodemode(code, { behavior: { codemode: { streamProgress: true } }, hooks: { 'tool:progress': ctx => void seen.push({ ...ctx }) } })
    const mine = seen.filter(ctx => ctx.callId === 'call_c').map(({ kind, text, tool, line }) => ({ kind, text, tool, line }))
    expect(mine).toEqual([{ kind: 'print', text: 'start', tool: undefined, line: 1 }, { kind: 'call', text: undefined, tool: 'greet', line: 2 }])
    const quiet: unknown[] = []
    const plain = await runCodemode(code, { hooks: { 'tool:progress': ctx => void quiet.push(ctx) } })
    expect(quiet).toEqual([])
    expect(plain.text).toBe(streamed.text)
  })
})
