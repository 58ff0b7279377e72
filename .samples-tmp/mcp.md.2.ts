import { createDockerContext } from 'zidane/contexts/docker'
import { connectMcpServers } from 'zidane/mcp'

const execution = createDockerContext({ image: 'node:22' })
const mcp = await connectMcpServers([
  { name: 'fs', transport: 'stdio', scope: 'context', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/workspace'] },
], { execution })

export {}
