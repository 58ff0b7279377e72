/**
 * One HTTP GET hop for `fetch_url`, on `node:http` / `node:https` rather than
 * the global `fetch`: only the node clients accept a per-request `lookup`,
 * which is how the connection is pinned to the addresses the guard approved.
 * Redirects are never followed here; the caller decides each hop.
 */

import type { IncomingMessage } from 'node:http'
import type { Readable, Transform } from 'node:stream'
import type { ResolvedAddress } from './target-guard'
import http from 'node:http'
import https from 'node:https'
import { pipeline } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { pinnedLookup } from './target-guard'

const REQUEST_HEADERS = {
  'user-agent': 'Mozilla/5.0 (compatible; zidane-fetch_url)',
  'accept': 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
}

/**
 * Send the request, connecting only to `addresses`. `agent: false` gives the
 * request a socket of its own: a pooled keep-alive socket could have been
 * opened by other code through ordinary, unchecked DNS.
 */
export function openRequest(url: URL, addresses: readonly ResolvedAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const transport = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method: 'GET',
      agent: false,
      lookup: pinnedLookup(url.hostname, addresses),
      headers: REQUEST_HEADERS,
      signal,
    }, resolve)
    request.on('error', reject)
    // A 101 answer to a request that asked for no upgrade makes node drop the socket and emit only 'close':
    // no 'response', no 'error', and the signal no longer reaches a request already destroyed. Without this
    // the promise would never settle, past the timeout and past an abort. After 'response' it does nothing.
    request.on('close', () => reject(new Error('the connection closed before a response came (the server may have switched protocols)')))
    request.end()
  })
}

export interface ResponseBody {
  body: Buffer
  /** More bytes were on the way than `maxBytes`; the rest was not downloaded. */
  truncated: boolean
}

/**
 * Read (and decompress) at most `maxBytes` of the body, then drop the
 * connection. The cap applies after decompression, so a small compressed
 * response cannot expand into an unbounded buffer.
 */
export async function readBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<ResponseBody> {
  const onAbort = () => response.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    signal.throwIfAborted()
    const decoder = decoderFor(response.headers['content-encoding'])
    const source: Readable = decoder ? pipeline(response, decoder, () => {}) : response
    const chunks: Buffer[] = []
    let size = 0
    let truncated = false
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (size + chunk.length > maxBytes) {
          chunks.push(chunk.subarray(0, maxBytes - size))
          size = maxBytes
          truncated = true
          break
        }
        chunks.push(chunk)
        size += chunk.length
      }
    }
    catch (error) {
      // Node reports a body cut short (a content-length that lied, a chunked body never ended) as a bare "aborted".
      if (!signal.aborted && (error as NodeJS.ErrnoException).code === 'ECONNRESET')
        throw new Error(`the connection closed before the body was complete (${size} bytes read)`, { cause: error })
      throw error
    }
    return { body: Buffer.concat(chunks, size), truncated }
  }
  finally {
    signal.removeEventListener('abort', onAbort)
    response.destroy()
  }
}

function decoderFor(encoding: string | string[] | undefined): Transform | undefined {
  const value = (Array.isArray(encoding) ? encoding.join(',') : encoding ?? '').trim().toLowerCase()
  if (value === '' || value === 'identity')
    return undefined
  if (value === 'gzip' || value === 'x-gzip')
    return createGunzip()
  if (value === 'deflate')
    return createInflate()
  if (value === 'br')
    return createBrotliDecompress()
  throw new Error(`the response uses an unsupported content-encoding "${value}"`)
}
