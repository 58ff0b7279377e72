/**
 * An MCP server: the official filesystem server, started over stdio, its
 * tools offered to the agent next to its own.
 *
 *   node --import tsx examples/mcp-server.ts
 *
 * The server (`@modelcontextprotocol/server-filesystem`, a dev dependency)
 * is started as a child process with this examples folder as its only
 * allowed root. Its tools reach the model as `mcp_fs_<tool>`; hooks and
 * sessions see `mcp__fs__<tool>`.
 *
 * With ANTHROPIC_API_KEY set, Claude chooses the calls. Without it, a
 * scripted model picks tools from the list the server really sent and
 * answers from what they really returned.
 */
import type { Provider, StreamOptions } from 'zidane'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { createAgent } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'

const LINE_START = /^/gm

const root = fileURLToPath(new URL('.', import.meta.url))
const serverEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted; the MCP server and its tools are real.\n')

const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  system: 'You answer questions about the files you can reach with your tools. Be brief.',
  mcpServers: [{ name: 'fs', transport: 'stdio', command: process.execPath, args: [serverEntry, root] }],
  behavior: { maxTurns: 6 },
})

agent.hooks.hook('mcp:tool:after', ({ server, tool, input, result, isError, durationMs }) => {
  const text = typeof result === 'string' ? result : result.map(part => part.type === 'text' ? part.text : `[${part.type}]`).join('')
  const preview = text.length > 160 ? `${text.slice(0, 160)}…` : text
  console.log(`${isError ? '✗' : '✓'} ${server}/${tool}(${JSON.stringify(input)}) in ${durationMs} ms\n${preview.replace(LINE_START, '    ')}`)
})

try {
  const stats = await agent.run({ prompt: 'Which example programs are in this folder, and what does the quickstart say it does in its first comment line?' })
  console.log(`\nanswer: ${stats.text}\nstop: ${stats.stopReason} · turns: ${stats.turns}`)
}
finally {
  // Stops the server process.
  await agent.destroy()
}

/** A stand-in model that uses the server's real tool list and real results. */
function offlineModel(): Provider {
  const wireName = (request: StreamOptions, tool: string) => {
    const found = request.tools.find(spec => spec.name.endsWith(`_${tool}`))
    if (!found)
      throw new Error(`the server offered no ${tool} tool (got ${request.tools.map(spec => spec.name).join(', ')})`)
    return found.name
  }
  const lastResult = (request: StreamOptions) => (request.messages.at(-1)?.content ?? [])
    .flatMap(block => block.type === 'tool_result' ? [block.output] : [])
    .map(output => typeof output === 'string' ? output : output.map(part => part.type === 'text' ? part.text : '').join(''))
    .join('\n')
  let listing = ''
  return scriptedProvider([
    {
      respond: (request) => {
        console.log(`the model was offered ${request.tools.length} tools: ${request.tools.map(spec => spec.name).slice(0, 5).join(', ')}, …\n`)
        return { text: 'Listing the folder.', toolCalls: [{ name: wireName(request, 'list_directory'), input: { path: root } }] }
      },
    },
    {
      respond: (request) => {
        listing = lastResult(request)
        return { text: 'Reading the quickstart.', toolCalls: [{ name: wireName(request, 'read_text_file'), input: { path: `${root}quickstart.ts`, head: 3 } }] }
      },
    },
    {
      respond: (request) => {
        const examples = listing.split('\n').filter(line => line.startsWith('[FILE]') && line.endsWith('.ts')).map(line => line.slice('[FILE] '.length))
        const firstComment = lastResult(request).split('\n').find(line => line.startsWith(' * '))?.slice(3) ?? '(no comment)'
        return { text: `${examples.length} examples: ${examples.join(', ')}. The quickstart says: "${firstComment}"` }
      },
    },
  ], { defaultModel: 'scripted-mcp' })
}
