/**
 * Shared set-up of the Restate benchmarks: the real restate-server on free
 * loopback ports, restateAgent served from this process, a fake Anthropic
 * server answering a long scripted run, and the journal's size read back
 * through the server's SQL introspection (`sys_journal`).
 */
import type { AgentOptions } from '../src/agent/options'
import type { SessionStore } from '../src/session/types'
import type { FakeAnthropic, FakeResponse, RecordedRequest } from '../test/support/fake-anthropic'
import type { ServedEndpoint } from '../test/support/restate-endpoint'
import type { RestateServer } from '../test/support/restate-server'
import { restateAgent } from '../src/durable'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { serveEndpoint } from '../test/support/restate-endpoint'
import { startRestateServer } from '../test/support/restate-server'

/** The step a tool result says comes next. */
const STEP_MARKER = /step=(\d+)/

/** A model that calls `note` `calls` times (one call per turn), then answers; each turn's text is `textBytes` long. */
export function longRunModel(calls: number, textBytes: number): (request: RecordedRequest) => FakeResponse {
  return (request) => {
    const messages = (request.body as { messages: { content: unknown }[] }).messages
    const marker = STEP_MARKER.exec(JSON.stringify(messages.at(-1)?.content ?? ''))
    const step = marker ? Number(marker[1]) : 0
    const text = `Step ${step}. ${'lorem ipsum '.repeat(Math.ceil(textBytes / 12)).slice(0, textBytes)}`
    if (step >= calls)
      return { type: 'turn', turn: { text: 'All notes written.', usage: { input_tokens: 1000, output_tokens: 10 } } }
    return { type: 'turn', turn: { text, toolCalls: [{ id: `toolu_${step}`, name: 'note', input: { step } }], usage: { input_tokens: 1000, output_tokens: 100 } } }
  }
}

/** The tool of the long run: returns `outputBytes` of text and the next step's marker. */
export function noteTool(outputBytes: number) {
  return {
    spec: { name: 'note', description: 'Write a note', inputSchema: { type: 'object', properties: { step: { type: 'number' } }, required: ['step'] } },
    isConcurrencySafe: true,
    execute: async ({ step }: { step: number }) => `${'note '.repeat(Math.ceil(outputBytes / 5)).slice(0, outputBytes)} step=${step + 1}`,
  }
}

export interface RestateBench {
  server: RestateServer
  model: FakeAnthropic
  endpoint: ServedEndpoint
  close: () => Promise<void>
}

export async function startRestateBench(options: { store: SessionStore, agent: (model: FakeAnthropic) => AgentOptions, answer: (request: RecordedRequest) => FakeResponse }): Promise<RestateBench> {
  const server = await startRestateServer()
  const model = await startFakeAnthropic({ fallback: options.answer })
  const object = restateAgent({ store: options.store, agent: () => options.agent(model) })
  const endpoint = await serveEndpoint([object])
  await server.register(endpoint.url)
  return {
    server,
    model,
    endpoint,
    close: async () => {
      await endpoint.close()
      await model.close()
      await server.stop()
    },
  }
}

/** Bytes Restate journaled for every invocation of `target` (`zidane-agent/<key>/run`), by entry type. */
export async function journalBytes(server: RestateServer, objectKey: string): Promise<{ total: number, byType: Record<string, number>, entries: number }> {
  const query = `SELECT j.entry_type AS type, j.raw_length AS bytes FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = '${objectKey.replaceAll('\'', '\'\'')}'`
  const response = await fetch(`${server.adminUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept': 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(30_000),
  })
  if (!response.ok)
    throw new Error(`journal query failed: ${response.status} ${await response.text()}`)
  const { rows } = await response.json() as { rows: { type: string, bytes: number }[] }
  const byType: Record<string, number> = {}
  for (const row of rows)
    byType[row.type] = (byType[row.type] ?? 0) + Number(row.bytes)
  return { total: rows.reduce((sum, row) => sum + Number(row.bytes), 0), byType, entries: rows.length }
}
