import type { IncomingMessage, ServerResponse } from 'node:http'
import type { McpElicitationContext } from '../../src/mcp'
import type { StreamableSession } from './support'
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { elicitThroughAskUser } from '../../src/mcp'
import { EVERYTHING_ENTRY, streamableSession, toolContext, trackConnections } from './support'

const { cleanups, connect, closeAll } = trackConnections()

afterEach(async () => {
  await closeAll()
})

const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
    subscribe: { type: 'boolean', title: 'Subscribe', default: true },
    plan: { type: 'string', title: 'Plan', oneOf: [{ const: 'p-free', title: 'Free' }, { const: 'p-pro', title: 'Pro' }], default: 'p-free' },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['red', 'green', 'blue'] } },
  },
  required: ['name', 'age'],
} as const

interface ElicitingServer {
  url: string
  /** Client capabilities each session announced in `initialize`. */
  capabilities: unknown[]
  close: () => Promise<void>
}

/**
 * An MCP server over streamable HTTP whose tools ask the user: `ask` through
 * `elicitInput` (which needs the capability), `force` with a raw
 * `elicitation/create` sent whether or not the client announced it, and
 * `hurry`, whose request the server gives up on after 200 ms.
 */
async function startElicitingServer(): Promise<ElicitingServer> {
  const sessions = new Map<string, StreamableSession>()
  const state: ElicitingServer = { url: '', capabilities: [], close: async () => {} }
  const build = () => {
    const server = new McpServer({ name: 'asker', version: '1.0.0' })
    server.server.oninitialized = () => void state.capabilities.push(server.server.getClientCapabilities())
    const report = (run: () => Promise<unknown>) => async () => {
      try {
        return { content: [{ type: 'text' as const, text: JSON.stringify(await run()) }] }
      }
      catch (error) {
        return { content: [{ type: 'text' as const, text: `error: ${(error as Error).message}` }], isError: true }
      }
    }
    server.registerTool('ask', { description: 'Ask for a profile' }, report(() => server.server.elicitInput({ message: 'Your profile, please', requestedSchema: FORM as never })))
    server.registerTool('confirm', { description: 'Ask for a yes or no' }, report(() => server.server.elicitInput({ message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } })))
    server.registerTool('force', { description: 'Elicits without checking capabilities' }, async (extra) => {
      const result = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Anyone there?', requestedSchema: { type: 'object', properties: {} } } }, ElicitResultSchema)
      return { content: [{ type: 'text', text: JSON.stringify(result) }] }
    })
    server.registerTool('hurry', { description: 'Gives the user 200 ms' }, report(() => server.server.elicitInput({ message: 'Quick!', requestedSchema: FORM as never }, { timeout: 200 })))
    return server
  }
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = []
      for await (const chunk of req)
        chunks.push(chunk as Buffer)
      const text = Buffer.concat(chunks).toString('utf8')
      const entry = await streamableSession(sessions, req, build)
      await entry.transport.handleRequest(req, res, text ? JSON.parse(text) : undefined)
    })().catch((error) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  const address = http.address() as { port: number }
  state.url = `http://127.0.0.1:${address.port}/mcp`
  state.close = async () => {
    await Promise.all(Array.from(sessions.values(), s => s.server.close().catch(() => {})))
    http.closeAllConnections()
    await new Promise<void>(resolve => http.close(() => resolve()))
  }
  return state
}

async function asker(onElicitation?: (ctx: McpElicitationContext) => void | Promise<void>) {
  const server = await startElicitingServer()
  cleanups.push(() => server.close())
  const mcp = await connect([{ name: 'asker', transport: 'streamable-http', url: server.url }], onElicitation ? { onElicitation } : {})
  const call = async (tool: string) => String(await Promise.resolve(mcp.tools[`mcp__asker__${tool}`].execute({}, toolContext())).catch((e: Error) => `thrown: ${e.message}`))
  return { server, mcp, call }
}

describe('elicitation through a host handler', () => {
  it('announces the capability, prefills the schema defaults, and sends the accepted answer with them applied', async () => {
    const seen: McpElicitationContext[] = []
    const { server, call } = await asker((ctx) => {
      seen.push({ ...ctx })
      ctx.action = 'accept'
      ctx.content = { name: 'Ada', age: 36, tags: ['red', 'blue'] }
    })
    expect(server.capabilities).toEqual([{ elicitation: { form: {} } }])
    expect(JSON.parse(await call('ask'))).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, subscribe: true, plan: 'p-free', tags: ['red', 'blue'] },
    })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ server: 'asker', message: 'Your profile, please', defaults: { subscribe: true, plan: 'p-free' } })
    expect(seen[0].requestedSchema).toEqual(FORM)
  })

  it('passes decline and cancel through, and an unset action declines', async () => {
    const actions: Array<McpElicitationContext['action']> = ['decline', 'cancel', undefined]
    const { call } = await asker((ctx) => {
      ctx.action = actions.shift()
    })
    expect(JSON.parse(await call('ask'))).toEqual({ action: 'decline' })
    expect(JSON.parse(await call('ask'))).toEqual({ action: 'cancel' })
    expect(JSON.parse(await call('ask'))).toEqual({ action: 'decline' })
  })

  it('an answer that does not match the schema reaches the server as an error naming the field, never as accept', async () => {
    const answers = [{ name: 'Ada', age: 'old' }, { name: 'Ada', age: 200 }, { age: 3 }]
    const { call } = await asker((ctx) => {
      ctx.action = 'accept'
      ctx.content = answers.shift()
    })
    expect(await call('ask')).toMatch(/thrown: error: .*does not match the requested schema: age: expected integer, got string$/)
    expect(await call('ask')).toMatch(/thrown: error: .*age: must be <= 150$/)
    expect(await call('ask')).toMatch(/thrown: error: .*name: is required$/)
  })

  it('a handler that throws is an error for the server; a request the server gives up on aborts the handler\'s signal', async () => {
    let signal: AbortSignal | undefined
    const { call } = await asker(async (ctx) => {
      if (ctx.message === 'Quick!') {
        signal = ctx.signal
        await new Promise(resolve => setTimeout(resolve, 1000))
        return
      }
      throw new Error('the form crashed')
    })
    expect(await call('ask')).toMatch(/the host could not answer the elicitation: the form crashed/)
    expect(await call('hurry')).toMatch(/thrown: error: .*timed out/i)
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(signal?.aborted).toBe(true)
  })
})

describe('elicitation without a handler', () => {
  it('announces no capabilities, and declines an elicitation the server sends anyway', async () => {
    const { server, call } = await asker()
    expect(server.capabilities).toEqual([{}])
    expect(await call('ask')).toMatch(/thrown: error: .*Client does not support/)
    expect(JSON.parse(await call('force'))).toEqual({ action: 'decline' })
  })
})

describe('elicitation through the ask_user host callback', () => {
  it('asks one question per field, offers the choices, keeps defaults on empty answers, and reads the typed values', async () => {
    const questions: Array<{ question: string, options?: readonly string[] }> = []
    const replies: Record<string, string> = { Name: 'Grace', Age: '85', Subscribe: '', Plan: 'Pro', Tags: 'green, Blue' }
    const askUser = async (question: string, { options }: { options?: readonly string[] }) => {
      questions.push({ question, options })
      return replies[Object.keys(replies).find(label => question.includes(`\n\n${label}`))!]
    }
    const { call } = await asker(elicitThroughAskUser(askUser))
    expect(JSON.parse(await call('ask'))).toEqual({
      action: 'accept',
      content: { name: 'Grace', age: 85, subscribe: true, plan: 'p-pro', tags: ['green', 'blue'] },
    })
    expect(questions.map(q => q.question.split('\n\n')[1].split('?')[0])).toEqual(['Name', 'Age', 'Subscribe', 'Plan', 'Tags'])
    expect(questions[0].question.startsWith('Your profile, please\n\n')).toBe(true)
    expect(questions[2]).toMatchObject({ options: ['yes', 'no'] })
    expect(questions[2].question).toContain('Leave empty for true')
    expect(questions[3].options).toEqual(['Free', 'Pro'])
    expect(questions[4].options).toEqual(['red', 'green', 'blue'])
  })

  it('an empty answer to a required field declines; a form without fields is Accept or Decline', async () => {
    const replies = ['', 'Accept', 'nope']
    const { call } = await asker(elicitThroughAskUser(async () => replies.shift()!))
    expect(JSON.parse(await call('ask'))).toEqual({ action: 'decline' })
    expect(JSON.parse(await call('confirm'))).toEqual({ action: 'accept', content: {} })
    expect(JSON.parse(await call('confirm'))).toEqual({ action: 'decline' })
  })
})

describe('elicitation from server-everything', () => {
  it('offers its elicitation tool only when a handler exists, and gets the answer with the schema defaults', async () => {
    const config = { name: 'everything', transport: 'stdio' as const, command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] }
    const bare = await connect([config])
    expect(bare.servers[0].tools).not.toContain('trigger-elicitation-request')

    const seen: McpElicitationContext[] = []
    const mcp = await connect([config], {
      onElicitation: (ctx) => {
        seen.push({ ...ctx })
        ctx.action = 'accept'
        ctx.content = { name: 'Ada Lovelace', check: true, email: 'ada@example.com' }
      },
    })
    expect(mcp.servers[0].tools).toContain('trigger-elicitation-request')
    const text = String(await mcp.tools['mcp__everything__trigger-elicitation-request'].execute({}, toolContext()))
    expect(text).toContain('User provided the requested information')
    expect(text).toContain('- Name: Ada Lovelace')
    expect(text).toContain('- Email: ada@example.com')
    // Defaults the user left alone came from the schema.
    expect(text).toContain('- Favorite Integer: 42')
    expect(text).toContain('It was a dark and stormy night.')
    expect(seen[0].defaults).toMatchObject({ integer: 42, number: 3.14, untitledSingleSelectEnum: 'Monica', untitledMultipleSelectEnum: ['Guitar'] })
  }, 30_000)
})
