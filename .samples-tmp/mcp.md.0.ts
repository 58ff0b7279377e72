import { connectMcpServers } from 'zidane/mcp'

const mcp = await connectMcpServers([
  { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/project'] },
  { name: 'tracker', transport: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer ${TRACKER_TOKEN}' } },
])

mcp.tools // { 'mcp__fs__read_text_file': ToolDef, … }
mcp.aliases // { 'mcp__fs__read_text_file': 'mcp_fs_read_text_file', … }
mcp.servers // [{ name: 'fs', status: 'connected', instructions: '…', tools: [...] }, …]
await mcp.close()

export {}
