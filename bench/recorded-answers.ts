/**
 * The fake server's answers, recorded once and replayed without a socket.
 *
 * A recording `fetch` (given to a floor run) keeps each response under its
 * turn: how many assistant messages the request carried. A dispatcher set as
 * undici's global dispatcher, the one Node's `fetch` uses, then answers every
 * request from those recordings: the real `fetch` path runs (the `Request`,
 * the body streamed out, the response head, then the body on a later turn of
 * the event loop), only the loopback socket and the server are gone.
 * `loop-in-process` and `loop-instructions` both replay through it.
 */

import type { BenchProvider } from './loop-script'
import { floorRunner } from './loop-runners'
import { startServerProcess } from './server-process'

/** Where Node's `fetch` looks for the dispatcher `setGlobalDispatcher` sets (the same key in every undici since 5). */
export const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

/** One assistant message per turn already answered: a request's turn. */
const ASSISTANT_ROLE = /"role":"assistant"/g
/** Where one server-sent event ends: each recorded body is replayed as the server wrote it, an event per chunk. */
const AFTER_EVENT = /(?<=\n\n)/

/** A response as the server sent it. */
export interface RecordedResponse {
  status: number
  /** Header names and values, alternating, as undici hands them to its handlers. */
  rawHeaders: Buffer[]
  chunks: Buffer[]
}

/** The recordings as JSON can carry them (to a child process). */
export interface SavedAnswers {
  [turn: string]: { status: number, headers: string[], chunks: string[] }
}

export function turnOf(body: string): number {
  return body.match(ASSISTANT_ROLE)?.length ?? 0
}

/** A `fetch` that answers through `globalThis.fetch` and records each response under its turn in `into`. */
export function recordingFetch(into: Map<number, RecordedResponse>): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init)
    const text = await response.text()
    into.set(turnOf(typeof init?.body === 'string' ? init.body : ''), {
      status: response.status,
      rawHeaders: [...response.headers].flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]),
      chunks: text.split(AFTER_EVENT).map(part => Buffer.from(part)),
    })
    return new Response(text, { status: response.status, headers: response.headers })
  }
}

/** One floor run against the fake server, its answers recorded by turn. */
export async function recordAnswers(provider: BenchProvider, turns: number, callsPerTurn: number, dir: string): Promise<Map<number, RecordedResponse>> {
  const server = await startServerProcess(provider, turns, callsPerTurn)
  try {
    const recorded = new Map<number, RecordedResponse>()
    const done = await floorRunner(provider, { baseURL: server.url, dir, maxTurns: turns + 10, fetch: recordingFetch(recorded) })()
    if (done.turns !== turns)
      throw new Error(`recorded answers: the recording run took ${done.turns} turns, not ${turns}`)
    return recorded
  }
  finally {
    await server.stop()
  }
}

export function saveAnswers(recorded: ReadonlyMap<number, RecordedResponse>): SavedAnswers {
  const saved: SavedAnswers = {}
  for (const [turn, response] of recorded) {
    saved[String(turn)] = {
      status: response.status,
      headers: response.rawHeaders.map(part => part.toString('utf8')),
      chunks: response.chunks.map(chunk => chunk.toString('utf8')),
    }
  }
  return saved
}

export function loadAnswers(saved: SavedAnswers): Map<number, RecordedResponse> {
  const recorded = new Map<number, RecordedResponse>()
  for (const [turn, response] of Object.entries(saved)) {
    recorded.set(Number(turn), {
      status: response.status,
      rawHeaders: response.headers.map(part => Buffer.from(part)),
      chunks: response.chunks.map(chunk => Buffer.from(chunk)),
    })
  }
  return recorded
}

/**
 * Run `work` with every `fetch` answered from `recorded` (`recordedDispatcher`
 * set as the global dispatcher), and give the previous dispatcher back after,
 * whatever `work` does. Call it after the process's first `fetch`: undici sets
 * its default dispatcher on first use, and that is the one given back.
 */
export async function withRecordedAnswers<T>(recorded: ReadonlyMap<number, RecordedResponse>, work: () => Promise<T>): Promise<T> {
  const slot = globalThis as Record<symbol, unknown>
  const previous = slot[GLOBAL_DISPATCHER]
  slot[GLOBAL_DISPATCHER] = recordedDispatcher(recorded)
  try {
    return await work()
  }
  finally {
    if (previous === undefined)
      delete slot[GLOBAL_DISPATCHER]
    else
      slot[GLOBAL_DISPATCHER] = previous
  }
}

/** The part of undici's dispatch handler this dispatcher calls. */
interface DispatchHandler {
  onConnect?: (abort: (reason?: unknown) => void) => void
  onHeaders?: (status: number, rawHeaders: Buffer[], resume: () => void, statusText: string) => boolean
  onData?: (chunk: Buffer) => boolean
  onComplete?: (trailers: Buffer[]) => void
  onError?: (error: unknown) => void
}

/**
 * A dispatcher answering each request with the recording of its turn: the
 * head once the request body has been read, the body's events on the next
 * turn of the event loop, as a server's answer arrives after its head.
 */
export function recordedDispatcher(recorded: ReadonlyMap<number, RecordedResponse>): object {
  const dispatcher = {
    dispatch(request: { body?: unknown }, handler: DispatchHandler): boolean {
      let aborted = false
      handler.onConnect?.((reason) => {
        if (aborted)
          return
        aborted = true
        handler.onError?.(reason ?? new Error('aborted'))
      })
      void answer(request.body, handler, () => aborted).catch(error => handler.onError?.(error))
      return true
    },
    async close(): Promise<void> {},
    async destroy(): Promise<void> {},
    // undici may subscribe to a dispatcher's connection events; this one has none.
    on: () => dispatcher,
    once: () => dispatcher,
    off: () => dispatcher,
  }

  async function answer(body: unknown, handler: DispatchHandler, aborted: () => boolean): Promise<void> {
    const text = await bodyText(body)
    const response = recorded.get(turnOf(text))
    if (!response)
      throw new Error(`recorded answers: none for turn ${turnOf(text)}`)
    if (aborted())
      return
    handler.onHeaders?.(response.status, response.rawHeaders, () => {}, 'OK')
    setImmediate(() => {
      if (aborted())
        return
      for (const chunk of response.chunks) handler.onData?.(chunk)
      handler.onComplete?.([])
    })
  }

  return dispatcher
}

/** A request body as `fetch` hands it to the dispatcher: a string, bytes, or an async iterable of either. */
async function bodyText(body: unknown): Promise<string> {
  if (typeof body === 'string')
    return body
  if (body instanceof Uint8Array)
    return Buffer.from(body).toString('utf8')
  if (body && typeof body === 'object' && Symbol.asyncIterator in body) {
    const parts: Buffer[] = []
    for await (const part of body as AsyncIterable<string | Uint8Array>) parts.push(Buffer.from(part))
    return Buffer.concat(parts).toString('utf8')
  }
  return ''
}
