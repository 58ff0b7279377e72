import { connectMcpServers, createMcpServerPool } from 'zidane/mcp'

const pool = createMcpServerPool() // or { idleMs: 30_000 }
const servers = [
  { name: 'fs', transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/repo'] },
  { name: 'notes', transport: 'stdio', command: 'notes-mcp', shared: false },
]
const session = await connectMcpServers(servers, { pool, poolKey: 'session-1' })
const subagent = await connectMcpServers(servers, { pool, poolKey: 'session-1' })
const other = await connectMcpServers(servers, { pool, poolKey: 'session-2' })
// fs: one process for all three. notes: one for session-1 (and its subagent), one for session-2.

await subagent.close() // its processes keep serving the others
await pool.close() // closes every pooled process

export {}
