import type { McpServerConfig } from '../../src/mcp'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createInteractionTools } from '../../src/tools'
import { EVERYTHING_ENTRY } from '../mcp/support'

const everything: McpServerConfig = { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] }

/** Call the server's elicitation tool, then answer with what it returned. */
function callElicitationTool() {
  return scriptedProvider([
    { toolCalls: [{ name: 'mcp_everything_trigger-elicitation-request', input: {} }] },
    { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: unknown }).output) }) },
  ])
}

describe('an agent answering MCP elicitations', () => {
  it('fires mcp:elicitation, and the server receives what the hook set', async () => {
    const provider = callElicitationTool()
    const messages: string[] = []
    const agent = createAgent({
      provider,
      mcpServers: [everything],
      hooks: {
        'mcp:elicitation': (ctx) => {
          messages.push(`${ctx.server}: ${ctx.message}`)
          ctx.action = 'accept'
          ctx.content = { name: 'Ada' }
        },
      },
    })
    try {
      const stats = await agent.run({ prompt: 'ask me' })
      expect(messages).toEqual(['everything: Please provide inputs for the following fields:'])
      expect(stats.text).toContain('- Name: Ada')
      expect(stats.text).toContain('- Favorite Integer: 42')
    }
    finally {
      await agent.destroy()
    }
  }, 30_000)

  it('without the hook, uses the host callback of the agent\'s ask_user tool', async () => {
    const provider = callElicitationTool()
    const questions: string[] = []
    const askUser = async (question: string) => {
      questions.push(question)
      return question.includes('Your full, legal name') ? 'Grace' : ''
    }
    const agent = createAgent({ provider, mcpServers: [everything], tools: createInteractionTools({ askUser }) })
    try {
      const stats = await agent.run({ prompt: 'ask me' })
      expect(questions.length).toBeGreaterThan(5)
      expect(questions[0]).toMatch(/^Please provide inputs for the following fields:\n\nString \(Your full, legal name\)\?/)
      expect(stats.text).toContain('- Name: Grace')
      expect(stats.text).toContain('- Favorite Number: 3.14')
    }
    finally {
      await agent.destroy()
    }
  }, 30_000)

  it('with neither, the server does not see the capability and offers no elicitation tool', async () => {
    const provider = scriptedProvider([{ text: 'done' }])
    const agent = createAgent({ provider, mcpServers: [everything] })
    try {
      await agent.run({ prompt: 'x' })
      expect(provider.requests[0].tools.map(t => t.name)).not.toContain('mcp_everything_trigger-elicitation-request')
      expect(provider.requests[0].tools.map(t => t.name)).toContain('mcp_everything_echo')
    }
    finally {
      await agent.destroy()
    }
  }, 30_000)
})
