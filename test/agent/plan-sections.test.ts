/**
 * Prompt sections from policies (`BehaviorPolicy.sections`), through the
 * public API: a host policy's section is planned once, sent byte for byte on
 * every turn of a run, counted by the context breakdown (during a run and
 * between runs), handed to `systemFreeze.onCapture` with the built-in
 * sections, and kept by a frozen prompt.
 */

import type { BehaviorPolicy, ContextBreakdown, FrozenPromptSections } from '../../src'
import type { McpConnection, McpServerConfig } from '../../src/mcp'
import { describe, expect, it } from 'vitest'
import { catalogChangeNotes, createAgent, definePolicy } from '../../src'
import { AgentPolicyError } from '../../src/errors'
import { createSession } from '../../src/session'
import { runPolicyScript, scriptedProvider } from '../../src/testing'
import { echoTool, textOf } from '../support/helpers'

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8')

/** A host policy that adds one section, with the text it is given. */
function houseRules(text: string): BehaviorPolicy {
  return definePolicy({ name: 'house-rules', sections: () => ({ 'house-rules': text }) })
}

const RULES = '# House rules\n\nAnswer in one line. Never guess a path.'

describe('a policy\'s prompt section', () => {
  it('is in the system prompt of every turn, byte for byte, and the context breakdown counts it', async () => {
    const during: ContextBreakdown[] = []
    let agent: ReturnType<typeof createAgent>
    const looking = <T>(turn: T) => () => {
      during.push(agent.getContextBreakdown())
      return turn
    }
    const provider = scriptedProvider([
      { respond: looking({ toolCalls: [{ name: 'echo', input: { n: 1 } }] }) },
      { respond: looking({ toolCalls: [{ name: 'echo', input: { n: 2 } }] }) },
      { respond: looking({ text: 'done' }) },
    ])
    agent = createAgent({ provider, tools: { echo: echoTool('echo') }, system: 'You help.', policies: [houseRules(RULES)] })
    const before = agent.getContextBreakdown()
    await agent.run({ prompt: 'go' })

    const systems = provider.requests.map(request => request.system)
    expect(systems).toHaveLength(3)
    expect(systems.every(system => system === `You help.\n\n${RULES}`)).toBe(true)
    for (const breakdown of [before, ...during])
      expect(breakdown.system).toEqual({ bytes: utf8(systems[0]), tokens: Math.ceil(utf8(systems[0]) / 4) })
  })

  it('follows the built-in sections, in policy order, and is planned with the run\'s knobs and tools', async () => {
    const seen: string[] = []
    const describeTools = definePolicy({
      name: 'tool-guide',
      sections: (behavior, tools) => {
        seen.push(`${String(behavior.extensions?.team)} ${tools.specs.map(spec => spec.name).join(',')}`)
        return { 'tool-guide': `Tools: ${tools.specs.map(spec => spec.name).join(', ')}` }
      },
    })
    const connection: McpConnection = {
      tools: { mcp__db__query: { ...echoTool('mcp__db__query'), mcp: { server: 'db', tool: 'query' } } },
      aliases: { mcp__db__query: 'mcp_db_query' },
      origins: { mcp__db__query: { server: 'db', tool: 'query' } },
      servers: [{ name: 'db', status: 'connected', instructions: 'Queries are read-only.', tools: ['query'] }],
      close: async () => {},
    }
    const servers: McpServerConfig[] = [{ name: 'db', transport: 'stdio', command: 'unused' }]
    const provider = scriptedProvider([{ text: 'ok' }])
    const agent = createAgent({
      provider,
      tools: { echo: echoTool('echo') },
      toolAliases: { echo: 'say' },
      system: 'Base.',
      mcpServers: servers,
      mcpConnector: async () => connection,
      policies: [describeTools, houseRules(RULES)],
      behavior: { extensions: { team: 'infra' } },
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()

    expect(seen).toEqual(['infra say,mcp_db_query'])
    const system = provider.requests[0].system
    expect(system).toBe(`Base.\n\n# MCP Server Instructions\n\n## db\n\nQueries are read-only.\n\nTools: say, mcp_db_query\n\n${RULES}`)
  })

  it('goes to systemFreeze.onCapture with the other sections, and a frozen prompt keeps it', async () => {
    const session = await createSession()
    let captured: { fresh: string, sections: FrozenPromptSections } | undefined
    const first = scriptedProvider([{ text: 'a' }])
    await createAgent({ provider: first, session, system: 'Base.', policies: [houseRules(RULES)] }).run({
      prompt: 'one',
      systemFreeze: { onCapture: (fresh, sections) => {
        captured = { fresh, sections }
      } },
    })
    expect(captured).toEqual({ fresh: `Base.\n\n${RULES}`, sections: { 'house-rules': RULES } })

    // A later agent whose policy now writes other rules: the frozen prompt is sent as captured, and the change is a note.
    const second = scriptedProvider([{ text: 'b' }, { text: 'c' }])
    await createAgent({ provider: second, session, system: 'Base.', policies: [houseRules('# House rules\n\nAnswer in two lines.')], tools: { echo: echoTool('echo') } }).run({
      prompt: 'two',
      systemFreeze: { system: captured!.fresh, notes: (_fresh, sections) => catalogChangeNotes(captured!.sections, sections) },
    })
    expect(second.requests[0].system).toBe(`Base.\n\n${RULES}`)
    expect(textOf(second.requests[0].messages.at(-1))).toContain('The "house-rules" section has changed. It now reads:\n\n# House rules\n\nAnswer in two lines.')
  })

  it('refuses a section name that is already taken, and a `sections` that is not a function', async () => {
    const provider = scriptedProvider([{ text: 'never' }])
    const twice = createAgent({ provider, policies: [houseRules('a'), { name: 'copycat', sections: () => ({ 'house-rules': 'b' }) }] })
    await expect(twice.run({ prompt: 'go' })).rejects.toThrow(/Policy "copycat" adds a prompt section named "house-rules"/)
    // A built-in section's name is taken even in a run without that section (no MCP server here).
    const builtIn = createAgent({ provider, policies: [{ name: 'squatter', sections: () => ({ 'mcp-instructions': 'mine' }) }] })
    await expect(builtIn.run({ prompt: 'go' })).rejects.toThrow(/Policy "squatter" adds a prompt section named "mcp-instructions"/)
    expect(provider.requests).toHaveLength(0)
    expect(() => createAgent({ provider, policies: [{ name: 'bad', sections: 'text' as never }] })).toThrow(AgentPolicyError)
  })

  it('is what runPolicyScript reports, enabled or not, and the script\'s run offers the policy\'s own tools', async () => {
    const guide = definePolicy({
      name: 'guide',
      enabled: behavior => behavior.extensions?.on === true,
      tools: () => ({ lookup: echoTool('lookup') }),
      sections: (_behavior, tools) => ({ guide: `Use ${tools.names.join(' or ')}.` }),
      gateCall: ({ run, call }) => run.tools.names.includes(call.name) ? undefined : { decision: { type: 'block', reason: `no tool ${call.name}` } },
    })
    const off = await runPolicyScript(guide, { tools: ['read_file'], steps: [] })
    expect(off).toMatchObject({ enabled: false, sections: { guide: 'Use read_file or lookup.' } })

    const on = await runPolicyScript(guide, {
      behavior: { extensions: { on: true } },
      tools: ['read_file'],
      steps: [{ phase: 'gateCall', call: { name: 'lookup' } }, { phase: 'gateCall', call: { name: 'missing' } }],
    })
    expect(on.sections).toEqual({ guide: 'Use read_file or lookup.' })
    expect(on.steps.map(step => step.phase === 'gateCall' ? step.decision : 'other')).toEqual([undefined, { type: 'block', reason: 'no tool missing' }])
  })
})
