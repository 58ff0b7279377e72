import type { AgentBehavior } from '../../../../src'
import type { WebKnobs } from '../../../../src/knobs/web-knobs'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { createFetchUrlTool } from '../../../../src/tools/fetch-url'
import { startLocalServer } from '../../../support/local-http'

/** Fetch a counting page on a local server twice through an agent; returns both tool results. */
async function fetchTwice(behavior: AgentBehavior): Promise<string[]> {
  let count = 0
  const server = await startLocalServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end(`count ${++count}`))
  try {
    const url = server.url('/count')
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'fetch_url', input: { url } }] },
      { toolCalls: [{ name: 'fetch_url', input: { url } }] },
      { text: 'done' },
    ])
    const results: string[] = []
    const agent = createAgent({
      provider,
      tools: { fetch_url: createFetchUrlTool({ allowLoopbackForTests: true }) },
      behavior,
      hooks: { 'tool:after': ctx => void results.push(String(ctx.result)) },
    })
    await agent.run({ prompt: 'go' })
    return results.map(result => result.includes('count ') ? `count ${result.split('count ')[1].trim()}` : 'refused')
  }
  finally {
    await server.close()
  }
}

export const webScenarios: SliceScenarios<WebKnobs> = {
  fetchUrlAllowHosts: {
    value: ['example.com'],
    outcome: behavior => fetchTwice(behavior),
    unset: ['count 1', 'count 2'],
    set: ['refused', 'refused'],
  },
  fetchUrlCacheTtlMs: {
    value: 60_000,
    outcome: behavior => fetchTwice(behavior),
    unset: ['count 1', 'count 2'],
    set: ['count 1', 'count 1'],
  },
}
