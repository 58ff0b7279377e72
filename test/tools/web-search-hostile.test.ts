/**
 * web_search against backend servers written to hurt, on 127.0.0.1:
 * compression bombs, endless bodies, highlight markup made of a million `<`,
 * JSON nested a million deep, and redirects off the endpoint's host. The
 * endpoint is the host's choice, but every byte it answers is outside input.
 * Nothing here asserts on time; the per-test timeout is only a hang guard.
 */
import type { ServerResponse } from 'node:http'
import type { WebSearchBackend } from '../../src/tools/web-search'
import type { LocalServer } from '../support/local-http'
import { createGzip, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { braveBackend, createWebSearchTool, duckDuckGoBackend, formatSearchResults, tavilyBackend } from '../../src/tools/web-search'
import { stripMarkup } from '../../src/tools/web-search/brave'
import { MAX_SEARCH_RESPONSE_BYTES } from '../../src/tools/web-search/http'
import { MAX_SEARCH_SNIPPET_CHARS, MAX_SEARCH_TITLE_CHARS } from '../../src/tools/web-search/web-search'
import { deferred } from '../support/helpers'
import { bareToolContext, callTool, startLocalServer } from '../support/local-http'
import { isWellFormed } from '../support/unicode'

const MiB = 1024 * 1024
const SPACES = Buffer.alloc(MiB, ' ')
const RESULT = '<a class="result__a" href="https://docs.example/">Found</a>'

let server: LocalServer
let other: LocalServer
let bomb: Buffer | undefined
const bodyStarted = deferred()

/** Write megabytes of spaces for as long as the client reads them. */
function endless(response: ServerResponse, status: number, gzip: boolean) {
  response.writeHead(status, { 'content-type': 'text/html', ...(gzip ? { 'content-encoding': 'gzip' } : {}) })
  const sink = gzip ? createGzip({ level: 1 }) : response
  if (gzip)
    sink.pipe(response)
  const pump = () => {
    while (!response.destroyed && sink.write(SPACES));
    if (!response.destroyed)
      sink.once('drain', pump)
  }
  response.on('close', () => sink.destroy())
  pump()
}

beforeAll(async () => {
  other = await startLocalServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(RESULT))
  server = await startLocalServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname
    switch (path) {
      case '/bomb/': {
        // 64 MiB of spaces, gzipped to about 64 KiB.
        bomb ??= gzipSync(Buffer.alloc(64 * MiB, ' '), { level: 1 })
        return response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(bomb)
      }
      case '/endless-gzip/': return endless(response, 200, true)
      case '/endless/': return endless(response, 200, false)
      case '/endless-abort/':
        endless(response, 200, false)
        return bodyStarted.resolve()
      case '/endless-error/': return endless(response, 503, false)
      case '/brave/res/v1/web/search': {
        const title = `<strong>A</strong>${'<'.repeat(300_000)}`
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results: [{ title, url: 'https://x.example/', description: 'd<b>e</b>' }] } }))
      }
      case '/deep/search': {
        const depth = 1_000_000
        return response.writeHead(200, { 'content-type': 'application/json' }).end(`{"results":${'['.repeat(depth)}${']'.repeat(depth)}}`)
      }
      case '/moved/': return response.writeHead(301, { location: server.url('/results/') }).end()
      case '/results/': return response.writeHead(200, { 'content-type': 'text/html' }).end(RESULT)
      case '/off-host/': return response.writeHead(302, { location: other.url('/') }).end()
      case '/loop/': return response.writeHead(302, { location: '/loop/' }).end()
      case '/tavily/search': return response.writeHead(307, { location: server.url('/tavily2/search') }).end()
      default: return response.writeHead(404).end('unknown path')
    }
  })
})
afterAll(async () => {
  await server.close()
  await other.close()
})

function search(backend: WebSearchBackend, signal?: AbortSignal) {
  return callTool(createWebSearchTool({ backend, timeoutMs: 15_000 }), { query: 'q' }, bareToolContext({ signal }))
}
const ddg = (path: string) => duckDuckGoBackend({ endpoint: server.url(path) })

describe('web_search: answers too large to hold', () => {
  it('stops a gzip body at the byte cap as it inflates, and says so', async () => {
    const error = `DuckDuckGo search failed: the response is larger than ${MAX_SEARCH_RESPONSE_BYTES} bytes`
    await expect(search(ddg('/bomb/'))).rejects.toThrow(error)
    await expect(search(ddg('/endless-gzip/'))).rejects.toThrow(error)
    await expect(search(ddg('/endless/'))).rejects.toThrow(error)
  })

  it('reads only an excerpt of an endless error answer', async () => {
    await expect(search(ddg('/endless-error/'))).rejects.toThrow(/^DuckDuckGo search failed: HTTP 503$/)
  })

  it('is aborted by the run while reading an endless body', async () => {
    const controller = new AbortController()
    const pending = search(ddg('/endless-abort/'), controller.signal)
    await bodyStarted.promise
    controller.abort()
    await expect(pending).rejects.toThrow('DuckDuckGo search was aborted')
  })
})

describe('web_search: hostile content', () => {
  it('strips Brave highlight markup in one pass, even with 300,000 unclosed `<`', async () => {
    const output = await search(braveBackend({ apiKey: 'k', endpoint: server.url('/brave') }))
    // The title is stripped whole, then cut to MAX_SEARCH_TITLE_CHARS.
    expect(output).toContain(`1. A${'<'.repeat(MAX_SEARCH_TITLE_CHARS - 2)}…\n`)
    expect(output).toContain('   de')
  })

  it('cuts a title and a snippet of megabytes to a line each, never inside a character', () => {
    const emoji = '\u{1F600}'
    const title = `${'t'.repeat(MAX_SEARCH_TITLE_CHARS - 2)}${emoji.repeat(MiB)}`
    const snippet = `${'s '.repeat(MiB)}`
    const output = formatSearchResults('q', 'X', [{ title, url: 'https://x.example/', snippet }])
    const [, , first, url, third] = output.split('\n')
    expect(first).toBe(`1. ${'t'.repeat(MAX_SEARCH_TITLE_CHARS - 2)}…`)
    expect(url).toBe('   https://x.example/')
    expect(third.length).toBe(3 + MAX_SEARCH_SNIPPET_CHARS)
    expect(third.endsWith('s…')).toBe(true)
    expect(isWellFormed(output)).toBe(true)
  })

  it('keeps a title or snippet within the limits as it came', () => {
    const title = 'x'.repeat(MAX_SEARCH_TITLE_CHARS)
    const snippet = 'y'.repeat(MAX_SEARCH_SNIPPET_CHARS)
    expect(formatSearchResults('q', 'X', [{ title, url: 'https://x.example/', snippet }])).toBe(`Results for "q" (X):\n\n1. ${title}\n   https://x.example/\n   ${snippet}`)
  })

  it('strips exactly what /<[^>]*>/g strips', () => {
    const text = fc.string({ unit: fc.constantFrom('<', '>', 'a', '/', ' '), maxLength: 40 })
    fc.assert(fc.property(text, value => stripMarkup(value) === value.replace(/<[^>]*>/g, '')), { numRuns: 1000 })
  })

  it('reads JSON nested a million levels deep without a stack overflow', async () => {
    const output = await search(tavilyBackend({ apiKey: 'k', endpoint: server.url('/deep') }))
    expect(output).toBe('No results for "q" (Tavily).')
  })
})

describe('web_search: redirects', () => {
  it('follows a redirect within the endpoint\'s host', async () => {
    expect(await search(ddg('/moved/'))).toContain('1. Found\n   https://docs.example/')
  })

  it('refuses a redirect to another host or port before sending anything there', async () => {
    await expect(search(ddg('/off-host/'))).rejects.toThrow(`DuckDuckGo search failed: the service redirected to ${other.url('/')}`)
    expect(other.requests).toHaveLength(0)
  })

  it('gives up on a redirect loop and never re-sends a POST', async () => {
    await expect(search(ddg('/loop/'))).rejects.toThrow(/DuckDuckGo search failed: too many redirects/)
    await expect(search(tavilyBackend({ apiKey: 'k', endpoint: server.url('/tavily') }))).rejects.toThrow(/Tavily search failed: the service redirected/)
    expect(server.requests.filter(request => request.url === '/tavily2/search')).toHaveLength(0)
  })
})
