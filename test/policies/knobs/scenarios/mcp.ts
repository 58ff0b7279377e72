import type { AgentBehavior, StreamOptions } from '../../../../src'
import type { McpKnobs } from '../../../../src/knobs/mcp-knobs'
import type { McpConnection, McpServerConfig } from '../../../../src/mcp'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { echoTool, wait } from '../../../support/helpers'
import { endOf } from '../harness'

const SERVERS: McpServerConfig[] = [{ name: 'calc', transport: 'stdio', command: 'unused' }]

/** A connector (the public `mcpConnector` seam) serving one tool, `add`, and the server's instructions. */
function connector(delayMs = 0) {
  return async (_servers: McpServerConfig[], options: { toolNameSeparator?: '_' | '__' }): Promise<McpConnection> => {
    if (delayMs > 0)
      await wait(delayMs)
    const wire = options.toolNameSeparator === '__' ? 'mcp__calc__add' : 'mcp_calc_add'
    return {
      tools: { mcp__calc__add: echoTool('mcp__calc__add', { mcp: { server: 'calc', tool: 'add' }, spec: { name: 'mcp__calc__add', description: 'Adds two small numbers', inputSchema: { type: 'object', properties: {} } } }) },
      aliases: { mcp__calc__add: wire },
      origins: { mcp__calc__add: { server: 'calc', tool: 'add' } },
      servers: [{ name: 'calc', status: 'connected', instructions: 'Numbers are small.', tools: ['add'] }],
      close: async () => {},
    }
  }
}

/** The first request of a one-turn run over the MCP connection. */
async function firstRequest(behavior: AgentBehavior): Promise<StreamOptions> {
  const provider = scriptedProvider([{ text: 'ok' }])
  const agent = createAgent({ provider, mcpServers: SERVERS, mcpConnector: connector(), behavior })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  return provider.requests[0]
}

const toolNames = async (behavior: AgentBehavior) => (await firstRequest(behavior)).tools.map(t => t.name)
const lazy = (behavior: AgentBehavior): AgentBehavior => ({ toolDisclosure: 'lazy', ...behavior })
const DEFAULT_IN_SCHEMA = /default (\d+)/

export const mcpScenarios: SliceScenarios<McpKnobs> = {
  mcpConnectTimeoutMs: {
    value: 20,
    outcome: behavior => endOf({ provider: scriptedProvider([{ text: 'ok' }]), mcpServers: SERVERS, mcpConnector: connector(200), behavior }),
    unset: 'completed',
    set: 'OperationTimeoutError',
  },
  mcpToolNameSeparator: {
    value: '__',
    outcome: toolNames,
    unset: ['mcp_calc_add'],
    set: ['mcp__calc__add'],
  },
  surfaceMcpInstructions: {
    value: false,
    outcome: async behavior => String((await firstRequest(behavior)).system).includes('Numbers are small.'),
    unset: true,
    set: false,
  },
  toolDisclosure: {
    value: 'lazy',
    outcome: toolNames,
    unset: ['mcp_calc_add'],
    set: ['tool_search', 'call_tool'],
  },
  toolSearch: {
    value: { tool: false },
    outcome: behavior => toolNames(lazy(behavior)),
    unset: ['tool_search', 'call_tool'],
    set: [],
    fields: {
      tool: { value: false, unset: ['tool_search', 'call_tool'], set: [] },
      mode: { value: 'unlock', unset: ['tool_search', 'call_tool'], set: ['tool_search'] },
      // What the model is told the default is, in the tool_search schema.
      limit: {
        value: 5,
        outcome: async (behavior) => {
          const search = (await firstRequest(lazy(behavior))).tools.find(t => t.name === 'tool_search')!
          return Number(DEFAULT_IN_SCHEMA.exec(JSON.stringify(search.inputSchema))![1])
        },
        unset: 20,
        set: 5,
      },
      catalog: {
        value: 'names',
        outcome: async behavior => String((await firstRequest(lazy(behavior))).system).includes('Adds two small numbers'),
        unset: true,
        set: false,
      },
    },
  },
}
