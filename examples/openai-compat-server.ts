/**
 * An OpenAI-compatible server: the kind vLLM, llama.cpp, Ollama or LM Studio
 * run on your machine, used through `openaiCompat`.
 *
 *   node --import tsx examples/openai-compat-server.ts
 *
 * By default the example starts its own small Chat Completions server on
 * 127.0.0.1: it speaks the real wire (server-sent `chat.completion.chunk`s,
 * tool calls streamed in pieces, a usage chunk, `[DONE]`), and its "model" is
 * a few lines of rules. The server prints what it receives, so you can see
 * what zidane sends such a server.
 *
 * To use a real server instead, set OPENAI_COMPAT_BASE_URL (for example
 * http://127.0.0.1:11434/v1 for Ollama) and OPENAI_COMPAT_MODEL, plus
 * OPENAI_COMPAT_API_KEY if it needs one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { createAgent, tool } from 'zidane'
import { openaiCompat } from 'zidane/providers/openai-compat'
import { z } from 'zod'

const AFTER_SPACE = /(?<= )/
const NUMBERS = /\d+(?:\.\d+)?/g

const add = tool({
  name: 'add',
  description: 'Add a list of numbers exactly.',
  input: z.object({ numbers: z.array(z.number()) }),
  isConcurrencySafe: true,
  execute: ({ numbers }) => String(numbers.reduce((sum, n) => sum + n, 0)),
})

const liveURL = process.env.OPENAI_COMPAT_BASE_URL
const server = liveURL ? undefined : await startLocalServer()
if (server)
  console.log(`[offline] OPENAI_COMPAT_BASE_URL is not set: started a local Chat Completions server at ${server.url}\n`)

try {
  const provider = openaiCompat({
    baseURL: liveURL ?? server!.url,
    apiKey: process.env.OPENAI_COMPAT_API_KEY,
    defaultModel: process.env.OPENAI_COMPAT_MODEL ?? 'tiny-rules-1',
  })
  const agent = createAgent({ provider, tools: { add }, system: 'Use the add tool for arithmetic. Be brief.', behavior: { maxTurns: 4 } })
  agent.hooks.hook('stream:text', ({ delta }) => void process.stdout.write(delta))
  agent.hooks.hook('tool:after', ({ name, input, result }) => console.log(`\n  -> ${name}(${JSON.stringify(input)}) = ${String(result)}`))

  const stats = await agent.run({ prompt: 'What is 1234 + 5678 + 90?' })
  console.log(`\n\nstop: ${stats.stopReason} · turns: ${stats.turns} · tokens in/out: ${stats.totalIn}/${stats.totalOut}`)
}
finally {
  await server?.close()
}

interface ChatRequest {
  model: string
  messages: { role: string, content?: unknown, tool_calls?: unknown[] }[]
  tools?: { function: { name: string } }[]
  stream_options?: { include_usage?: boolean }
}

/** A Chat Completions endpoint whose "model" adds the numbers in the prompt with the `add` tool. */
async function startLocalServer(): Promise<{ url: string, close: () => Promise<void> }> {
  let requests = 0
  const http = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }))
      return
    }
    let body = ''
    for await (const chunk of req)
      body += chunk
    const request = JSON.parse(body) as ChatRequest
    requests += 1
    console.log(`  [server] request ${requests}: model ${request.model}, messages [${request.messages.map(m => m.role).join(', ')}], tools [${(request.tools ?? []).map(t => t.function.name).join(', ')}]`)

    const id = `chatcmpl-${requests}`
    const chunk = (delta: unknown, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })
    const frames: unknown[] = [chunk({ role: 'assistant', content: '' })]
    const last = request.messages.at(-1)!
    if (last.role === 'tool') {
      for (const word of `The total is ${String(last.content)}.`.split(AFTER_SPACE))
        frames.push(chunk({ content: word }))
      frames.push(chunk({}, 'stop'))
    }
    else {
      const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content)
      const numbers = (text.match(NUMBERS) ?? []).map(Number)
      const args = JSON.stringify({ numbers })
      frames.push(chunk({ content: 'Adding those up.' }))
      frames.push(chunk({ tool_calls: [{ index: 0, id: `call_${requests}`, type: 'function', function: { name: 'add', arguments: '' } }] }))
      // Arguments arrive in pieces, as real servers send them.
      for (let at = 0; at < args.length; at += 8)
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + 8) } }] }))
      frames.push(chunk({}, 'tool_calls'))
    }
    if (request.stream_options?.include_usage)
      frames.push({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model, choices: [], usage: { prompt_tokens: 20 * request.messages.length, completion_tokens: 12, total_tokens: 20 * request.messages.length + 12 } })

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'connection': 'keep-alive' })
    for (const frame of frames)
      res.write(`data: ${JSON.stringify(frame)}\n\n`)
    res.end('data: [DONE]\n\n')
  }

  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections()
      http.close(() => resolve())
    }),
  }
}
