import { createAgent } from 'zidane'

const agent = createAgent({
  provider,
  mcpServers: [
    { name: 'fs', transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/repo'] },
    { name: 'docs', transport: 'streamable-http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
  ],
  behavior: { mcpConnectTimeoutMs: 60_000 },
})
await agent.run({ prompt: 'List the files under /repo/src' })
await agent.destroy() // closes every server, bounded by destroyTimeoutMs

export {}
