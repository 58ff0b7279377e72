/**
 * Decisions: `agent.decide` asks a model typed questions about some evidence
 * in one short structured call, and `ctx.decide` does the same from inside a
 * hook, bound to the run. Here a `tool:gate` asks, before each file deletion,
 * whether the file is a build artifact (a predicate), which area it belongs to
 * (a choice) and how risky deleting it is (a score), and refuses the call
 * unless it is a regenerable artifact.
 *
 *   node --import tsx examples/decisions.ts
 *
 * Offline (default), the run's turns come from the scripted provider and the
 * decisions go to a small Chat Completions server the example starts on
 * 127.0.0.1: it speaks the real wire (a `response_format` JSON schema in, the
 * answer object streamed back as SSE chunks) and its "model" is a few rules.
 * With ANTHROPIC_API_KEY set, Claude plays both parts (a forced tool call
 * carries the answers). The files are real either way, in a temporary folder.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { DecisionQuestions, Provider } from 'zidane'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { openaiCompat } from 'zidane/providers/openai-compat'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const BUILD_PATH = /\\"path\\": \\"build\//
const MENTIONS_BUILD = /build/

const QUESTIONS = {
  artifact: { kind: 'predicate', question: 'Is the file a build artifact that a build regenerates?' },
  area: { kind: 'choice', question: 'Which part of the project does the file belong to?', options: ['source', 'build', 'docs'] },
  risk: { kind: 'score', question: 'How risky is deleting it, from 0 (harmless) to 10 (data loss)?', min: 0, max: 10 },
} as const satisfies DecisionQuestions

const workdir = await mkdtemp(join(tmpdir(), 'zidane-decisions-'))
await mkdir(join(workdir, 'build'))
await writeFile(join(workdir, 'build', 'app.js'), 'console.log("built")\n')
await writeFile(join(workdir, 'notes.md'), '# Notes nobody else has\n')

const deleteFile = tool({
  name: 'delete_file',
  description: 'Delete one file of the project.',
  input: z.object({ path: z.string() }),
  execute: async ({ path }) => {
    await rm(join(workdir, path))
    return `deleted ${path}`
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
const server = live ? undefined : await startDecisionServer()
let provider: Provider
let decider: Provider
if (live) {
  provider = anthropic()
  decider = provider
}
else {
  console.log(`[offline] ANTHROPIC_API_KEY is not set: scripted turns, decisions on a local server at ${server!.url}\n`)
  provider = scriptedProvider([
    { toolCalls: [{ name: 'delete_file', input: { path: 'build/app.js' } }, { name: 'delete_file', input: { path: 'notes.md' } }] },
    { text: 'Removed the build output; notes.md was kept.' },
  ])
  decider = openaiCompat({ baseURL: server!.url, defaultModel: 'tiny-rules-1' })
}

try {
  const agent = createAgent({ provider, decisions: { provider: decider, timeoutMs: 20_000 }, tools: { deleteFile }, behavior: { maxTurns: 4 } })
  console.log(`decisions available: ${agent.decide.available}`)

  // A decision on its own, outside any run.
  const listing = (await readdir(workdir, { recursive: true })).map(String).sort()
  const standalone = await agent.decide({ input: { files: listing }, questions: { hasBuild: { kind: 'predicate', question: 'Is there a build output folder?' } } })
  console.log(`standalone: ${standalone.ok ? JSON.stringify(standalone.answers.hasBuild) : `${standalone.reason}: ${standalone.message}`}`)

  agent.hooks.hook('decision:end', (ctx) => {
    const usage = ctx.usage ? ` · ${ctx.usage.input}/${ctx.usage.output} tokens` : ''
    console.log(`  [decision:end] ${ctx.ok ? 'ok' : ctx.reason} in ${Math.round(ctx.durationMs)} ms${usage}`)
  })
  agent.hooks.hook('tool:gate', async (ctx) => {
    const path = String(ctx.input.path)
    const verdict = await ctx.decide({ input: { path, files: listing }, questions: QUESTIONS })
    if (!verdict.ok) {
      // No answer is no permission: fail closed.
      ctx.block = true
      ctx.reason = `could not check ${path} (${verdict.reason})`
      return
    }
    const { artifact, area, risk } = verdict.answers
    console.log(`  [gate] ${path}: artifact=${artifact.kind === 'predicate' ? artifact.value : '?'} area=${area.kind === 'choice' ? area.value : '?'} risk=${risk.kind === 'score' ? risk.value : '?'}`)
    if (artifact.kind !== 'predicate' || !artifact.value) {
      ctx.block = true
      ctx.reason = `${path} is not a build artifact: ${artifact.reason}`
    }
  })

  const stats = await agent.run({ prompt: `Clean up the project in ${workdir}: delete build/app.js and notes.md.` })
  const left = (await readdir(workdir, { recursive: true })).map(entry => relative(workdir, join(workdir, String(entry)))).sort()
  console.log(`\n${stats.text}\nstop: ${stats.stopReason} · files left: ${left.join(', ')}`)
}
finally {
  await server?.close()
  await rm(workdir, { recursive: true, force: true })
}

interface ChatRequest {
  model: string
  messages: { role: string, content?: unknown }[]
  response_format?: { type: string, json_schema?: { schema?: { properties?: Record<string, unknown> } } }
}

/** A Chat Completions endpoint whose "model" answers decision questions by a few rules about paths. */
async function startDecisionServer(): Promise<{ url: string, close: () => Promise<void> }> {
  const http = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = ''
    for await (const chunk of req)
      body += chunk
    const request = JSON.parse(body) as ChatRequest
    const names = Object.keys(request.response_format?.json_schema?.schema?.properties ?? {})
    const evidence = JSON.stringify(request.messages.at(-1)?.content ?? '')
    console.log(`  [server] decision request: schema ${request.response_format?.type}, questions [${names.join(', ')}]`)
    const inBuild = BUILD_PATH.test(evidence)
    const rules: Record<string, { value: unknown, reason: string }> = {
      artifact: { value: inBuild, reason: inBuild ? 'It sits in the build output folder.' : 'It is hand-written.' },
      area: { value: inBuild ? 'build' : 'docs', reason: inBuild ? 'Under build/.' : 'A Markdown file.' },
      risk: { value: inBuild ? 1 : 8, reason: inBuild ? 'A build recreates it.' : 'No other copy exists.' },
      hasBuild: { value: MENTIONS_BUILD.test(evidence), reason: 'The listing names a build folder.' },
    }
    const answers = Object.fromEntries(names.map(name => [name, { ...(rules[name] ?? { value: false, reason: 'No rule for this question.' }), refused: false }]))
    const text = JSON.stringify(answers)
    const chunk = (delta: unknown, finish: string | null = null) => ({ id: 'chatcmpl-rules', object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })
    const frames: unknown[] = [chunk({ role: 'assistant', content: '' })]
    for (let at = 0; at < text.length; at += 24)
      frames.push(chunk({ content: text.slice(at, at + 24) }))
    frames.push(chunk({}, 'stop'))
    frames.push({ id: 'chatcmpl-rules', object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model, choices: [], usage: { prompt_tokens: Math.ceil(body.length / 4), completion_tokens: Math.ceil(text.length / 4) } })
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
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
