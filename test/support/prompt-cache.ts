/**
 * A simulation of Anthropic's prompt cache for the fake Messages server.
 * A request is read as its cacheable units in the order the API caches them
 * (each tool, each system block, each message block with its role); an entry
 * is the bytes of every unit up to a `cache_control` breakpoint. A request
 * reads the longest live entry that ends at one of its breakpoints or at any
 * of the 20 units before one (the API's look-back, which is what lets the
 * moving last-message breakpoint hit the previous request's entry), writes an
 * entry at each of its breakpoints, and each hit refreshes the entry's TTL.
 * Time is a simulated clock the caller moves. Usage is reported the way the
 * API reports it: `input_tokens` past the last breakpoint, with cache reads
 * and writes apart, at 4 bytes a token.
 *
 * Free of test-runner imports, so a benchmark can use it too.
 */

import { createHash } from 'node:crypto'

/** What one request cost in the simulated cache, in bytes and in the tokens the API would report. */
export interface CacheAccount {
  /** Bytes of the cacheable prefix (every unit). */
  totalBytes: number
  readBytes: number
  writtenBytes: number
  uncachedBytes: number
  usage: { input_tokens: number, cache_read_input_tokens: number, cache_creation_input_tokens: number }
}

export interface PromptCache {
  /** Account one request body (and update the cache as the API would). */
  account: (body: any) => CacheAccount
  /** Move the simulated clock forward. */
  advance: (ms: number) => void
  /** Every account so far, in request order. */
  readonly history: readonly CacheAccount[]
}

export interface PromptCacheOptions {
  /** Entry lifetime; default five minutes, Anthropic's ephemeral cache. */
  ttlMs?: number
  /** How far before a breakpoint a lookup may land. Default 20 units, as the API documents. */
  lookback?: number
}

const BYTES_PER_TOKEN = 4

/** The cacheable units of a Messages request, with each unit's breakpoint flag; `cache_control` itself is left out. */
export function cacheUnits(body: any): { text: string, breakpoint: boolean }[] {
  const units: { text: string, breakpoint: boolean }[] = []
  const add = (prefix: string, value: any) => {
    const breakpoint = typeof value === 'object' && value !== null && value.cache_control !== undefined
    units.push({ text: prefix + JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner), breakpoint })
  }
  for (const tool of body.tools ?? []) add('tool:', tool)
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system ?? []
  for (const block of system) add('system:', block)
  for (const message of body.messages ?? []) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    for (const block of blocks) add(`${message.role}:`, block)
  }
  return units
}

export function createPromptCache(options: PromptCacheOptions = {}): PromptCache {
  const ttlMs = options.ttlMs ?? 5 * 60_000
  const lookback = options.lookback ?? 20
  const entries = new Map<string, number>()
  const history: CacheAccount[] = []
  let now = 0

  function account(body: any): CacheAccount {
    const units = cacheUnits(body)
    const hashes: string[] = []
    const ends: number[] = []
    let hash = ''
    let bytes = 0
    for (const unit of units) {
      hash = createHash('sha256').update(hash).update(unit.text).digest('hex')
      bytes += Buffer.byteLength(unit.text)
      hashes.push(hash)
      ends.push(bytes)
    }
    const breakpoints = units.flatMap((unit, index) => unit.breakpoint ? [index] : [])
    const live = (key: string) => (entries.get(key) ?? -1) > now
    // The longest live entry at a breakpoint or within the look-back before one.
    let hitAt = -1
    for (const point of breakpoints) {
      for (let i = point; i >= Math.max(0, point - lookback); i--) {
        if (i > hitAt && live(hashes[i])) {
          hitAt = i
          break
        }
      }
    }
    const readBytes = hitAt >= 0 ? ends[hitAt] : 0
    if (hitAt >= 0)
      entries.set(hashes[hitAt], now + ttlMs)
    const lastPoint = breakpoints.at(-1) ?? -1
    const cachedEnd = lastPoint >= 0 ? ends[lastPoint] : 0
    for (const point of breakpoints) {
      if (!live(hashes[point]))
        entries.set(hashes[point], now + ttlMs)
    }
    const writtenBytes = Math.max(0, cachedEnd - readBytes)
    const totalBytes = bytes
    const uncachedBytes = totalBytes - readBytes - writtenBytes
    const result: CacheAccount = {
      totalBytes,
      readBytes,
      writtenBytes,
      uncachedBytes,
      usage: {
        input_tokens: Math.ceil(uncachedBytes / BYTES_PER_TOKEN),
        cache_read_input_tokens: Math.ceil(readBytes / BYTES_PER_TOKEN),
        cache_creation_input_tokens: Math.ceil(writtenBytes / BYTES_PER_TOKEN),
      },
    }
    history.push(result)
    return result
  }

  return {
    account,
    advance: (ms) => {
      now += ms
    },
    history,
  }
}
