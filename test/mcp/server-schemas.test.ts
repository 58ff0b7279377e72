import type { ToolResultBlock } from '../../src/types'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { serverSchemaValidator } from '../../src/mcp/schema-validator'
import { scriptedProvider } from '../../src/testing'
import { blocksOfType } from '../support/helpers'

// The MCP SDK checks a tool's structuredContent against the outputSchema the server published, with Ajv by default:
// a server that writes `^(a+)+$` into its output schema and answers with a few dozen `a`s and a `!` froze the host
// process. zidane's clients check with its own linear-time checker instead. These tests would hang, not fail,
// with Ajv back; they check results only.

const HOSTILE = `${'a'.repeat(5000)}!`

describe('the validator zidane gives its MCP clients', () => {
  it('answers an explosive pattern against a long string at once', () => {
    const check = serverSchemaValidator.getValidator({ type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } })
    expect(check({ v: HOSTILE })).toEqual({ valid: false, data: undefined, errorMessage: 'v: must match /^(a+)+$/' })
    expect(check({ v: 'aaa' })).toEqual({ valid: true, data: { v: 'aaa' }, errorMessage: undefined })
  })

  it('ignores a pattern only a backtracking engine can run: the schema is the server\'s', () => {
    const check = serverSchemaValidator.getValidator({ type: 'object', properties: { v: { type: 'string', pattern: '^(?!(a+)+$)' } } })
    expect(check({ v: HOSTILE }).valid).toBe(true)
  })

  it('lists a bounded number of problems however many the value has', () => {
    const check = serverSchemaValidator.getValidator({ type: 'array', items: { type: 'string' } })
    const result = check(Array.from({ length: 100_000 }, (_, index) => index))
    expect(result.valid).toBe(false)
    expect(result.errorMessage).toContain('and 99980 more problems')
    expect(result.errorMessage!.length).toBeLessThan(5000)
  })
})

// A stdio server (the SDK's low-level Server) whose tool publishes an output schema with an explosive pattern,
// and answers `{ v }` with the `v` it was called with.
const SERVER_SOURCE = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
const server = new Server({ name: 'shapes', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: 'echo',
    description: 'Answers with v.',
    inputSchema: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] },
    outputSchema: { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } }, required: ['v'] },
  }],
}))
server.setRequestHandler(CallToolRequestSchema, async request => ({
  content: [{ type: 'text', text: 'v has ' + request.params.arguments.v.length + ' characters' }],
  structuredContent: { v: request.params.arguments.v },
}))
server.connect(new StdioServerTransport()).catch(() => {})
`

describe('an MCP server whose output schema explodes on a backtracking engine', () => {
  it('gets its bad structured content refused as an error result, and the run goes on', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'mcp_s_echo', input: { v: HOSTILE } }, { name: 'mcp_s_echo', input: { v: 'aaa' } }] },
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      mcpServers: [{ name: 's', transport: 'stdio', command: process.execPath, args: ['--input-type=module', '-e', SERVER_SOURCE], cwd: root, toolTimeout: 10_000 }],
    })
    try {
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.stopReason).toBe('completed')
      const results = blocksOfType(provider.requests[1].messages, 'tool_result') as ToolResultBlock[]
      expect(results).toHaveLength(2)
      expect(results[0].isError).toBe(true)
      expect(String(results[0].output)).toContain('v: must match /^(a+)+$/')
      expect(results[1].isError).toBeFalsy()
      expect(String(results[1].output)).toContain('v has 3 characters')
    }
    finally {
      await agent.destroy()
    }
  }, 30_000)
})
