/**
 * A short run of every loop of the loop-overhead benchmark, for a CI smoke
 * test: the facts that show the loops do the same work (turns, tool calls,
 * final text, what reached the disk, the conversation each sent), and no
 * timings. The fake server runs in this process here and keeps its requests.
 */

import type { RecordedRequest } from '../test/support/fake-anthropic'
import type { LoopConfig } from './loop-runners'
import type { BenchProvider } from './loop-script'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileStore, loadSession } from '../src/session'
import { floorRunner, LOOP_CONFIGS, zidaneRunner } from './loop-runners'
import { startBenchServer } from './loop-script'

/** What one loop did in a smoke run. */
export interface SmokeFacts {
  turns: number
  /** Tool calls the loop executed. */
  toolCalls: number
  text: string
  /** Requests the server received. */
  requests: number
  /** Floor: messages in its log. zidane: turns in the session loaded back from the store. */
  persisted: number
}

/** What one zidane configuration did in a smoke run. */
export type ZidaneSmokeFacts = SmokeFacts & {
  stopReason: string
  /** Every request carried the same conversation as the floor's request of that turn (see `conversationOf`). */
  sameConversation: boolean
}

/** The smoke run of one scenario. */
export interface SmokeResult {
  floor: SmokeFacts
  zidane: Record<LoopConfig, ZidaneSmokeFacts>
  /**
   * The same loops with nothing persisted (the floor without its log, zidane
   * without a session); `persisted` counts the files each left on disk.
   */
  unpersisted: {
    floor: SmokeFacts
    zidane: Record<'defaults' | 'policies', ZidaneSmokeFacts>
  }
}

/** Run the floor and every zidane configuration once, for `turns` turns of `callsPerTurn` calls. */
export async function loopSmoke(provider: BenchProvider, callsPerTurn: number, turns = 5): Promise<SmokeResult> {
  const server = await startBenchServer(provider, turns, callsPerTurn, { keepRequests: true })
  const dir = await mkdtemp(join(tmpdir(), 'zidane-loop-smoke-'))
  try {
    let toolCalls = 0
    const options = {
      baseURL: server.url,
      maxTurns: turns + 5,
      onToolCall: () => {
        toolCalls++
      },
    }
    const floorRun = await floorRunner(provider, { ...options, dir: join(dir, 'floor') })()
    const floorRequests = server.requests.map(request => conversationOf(provider, request))
    const logged = (await readFile(floorRun.file, 'utf8')).split('\n').filter(line => line !== '')
    const floor: SmokeFacts = {
      turns: floorRun.turns,
      toolCalls,
      text: floorRun.text,
      requests: floorRequests.length,
      persisted: logged.reduce((count, line) => count + (JSON.parse(line) as unknown[]).length, 0),
    }
    const zidane = {} as SmokeResult['zidane']
    for (const config of LOOP_CONFIGS) {
      toolCalls = 0
      const sent = server.requests.length
      const configDir = join(dir, config)
      const run = await zidaneRunner(provider, config, callsPerTurn > 1, { ...options, dir: configDir })()
      const requests = server.requests.slice(sent).map(request => conversationOf(provider, request))
      const stored = await loadSession(run.sessionId, { store: createFileStore({ dir: join(configDir, 'sessions') }) })
      zidane[config] = {
        turns: run.turns,
        toolCalls,
        text: run.text,
        requests: requests.length,
        persisted: stored.turns.length,
        stopReason: run.stopReason,
        sameConversation: requests.length === floorRequests.length && requests.every((body, i) => body === floorRequests[i]),
      }
    }

    toolCalls = 0
    let sent = server.requests.length
    const bareFloorDir = join(dir, 'floor-none')
    const bareFloorRun = await floorRunner(provider, { ...options, dir: bareFloorDir, persistence: 'none' })()
    const bareFloor: SmokeFacts = {
      turns: bareFloorRun.turns,
      toolCalls,
      text: bareFloorRun.text,
      requests: server.requests.length - sent,
      persisted: await filesUnder(bareFloorDir),
    }
    const bareZidane = {} as SmokeResult['unpersisted']['zidane']
    for (const config of ['defaults', 'policies'] as const) {
      toolCalls = 0
      sent = server.requests.length
      const configDir = join(dir, `${config}-none`)
      const run = await zidaneRunner(provider, config, callsPerTurn > 1, { ...options, dir: configDir, persistence: 'none' })()
      const requests = server.requests.slice(sent).map(request => conversationOf(provider, request))
      bareZidane[config] = {
        turns: run.turns,
        toolCalls,
        text: run.text,
        requests: requests.length,
        persisted: await filesUnder(configDir),
        stopReason: run.stopReason,
        sameConversation: requests.length === floorRequests.length && requests.every((body, i) => body === floorRequests[i]),
      }
    }
    return { floor, zidane, unpersisted: { floor: bareFloor, zidane: bareZidane } }
  }
  finally {
    await server.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Files (not directories) under `dir`, recursively; 0 when it does not exist. */
async function filesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter(entry => entry.isFile()).length
}

/**
 * A request's conversation as comparable text: system prompt, tool names and
 * messages (the Responses API's `instructions` and `input`), keys sorted. Two differences of form are set aside, which change
 * no content: string content written as one text block, and prompt-cache
 * `cache_control` marks (zidane adds them; the floor sends none).
 */
function conversationOf(provider: BenchProvider, request: RecordedRequest): string {
  const body = request.body as Record<string, unknown>
  const tools = (body.tools as Array<Record<string, any>>).map(tool => provider === 'openai-chat' ? tool.function.name : tool.name)
  return canonical({ model: body.model, system: body.system ?? body.instructions ?? null, tools, messages: body.messages ?? body.input })
}

function canonical(value: unknown): string {
  return JSON.stringify(normalize(value, undefined))
}

function normalize(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string' && (key === 'content' || key === 'system'))
    return [{ text: value, type: 'text' }]
  if (Array.isArray(value))
    return value.map(item => normalize(item, undefined))
  if (typeof value !== 'object' || value === null)
    return value
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(value).sort()) {
    if (name !== 'cache_control')
      out[name] = normalize((value as Record<string, unknown>)[name], name)
  }
  return out
}
