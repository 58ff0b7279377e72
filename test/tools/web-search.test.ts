import type { WebSearchBackend } from '../../src/tools/web-search'
import type { LocalServer } from '../support/local-http'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { braveBackend, createWebSearchTool, duckDuckGoBackend, formatSearchResults, parseDuckDuckGoResults, tavilyBackend } from '../../src/tools/web-search'
import { bareToolContext, callTool, startLocalServer } from '../support/local-http'

/** A results page shaped like DuckDuckGo's HTML endpoint: one ad, two organic results, one without a snippet. */
const DDG_PAGE = `<html><body>
<div class="result results_links result--ad">
  <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=shop.example&u3=x">Buy now</a></h2>
  <a class="result__snippet" href="#">Sponsored</a>
</div>
<div class="result results_links results_links_deep web-result">
  <h2 class="result__title">
    <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.example.com%2Fguide%3Fa%3D1%26b%3D2&amp;rut=abc">The <b>Guide</b> &amp; more</a>
  </h2>
  <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">Everything about <b>zidane</b>
     agents.</a>
</div>
<div class="result results_links web-result">
  <h2 class="result__title"><a class="result__a" href="https://plain.example/page">Plain link</a></h2>
</div>
</body></html>`

let server: LocalServer
const answers = new Map<string, { status?: number, type?: string, body: string }>()

beforeAll(async () => {
  server = await startLocalServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname
    const answer = answers.get(path)
    if (!answer)
      return response.writeHead(404).end('unknown path')
    response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.body)
  })
})
afterEach(() => {
  answers.clear()
  server.requests.length = 0
  vi.unstubAllEnvs()
})
afterAll(() => server.close())

function run(backend: WebSearchBackend, input: Record<string, unknown>, behavior: Record<string, unknown> = {}, signal?: AbortSignal) {
  return callTool(createWebSearchTool({ backend }), input, bareToolContext({ behavior, signal }))
}

describe('duckDuckGo backend', () => {
  it('parses organic results from the HTML page, skipping ads and unwrapping redirect links', () => {
    expect(parseDuckDuckGoResults(DDG_PAGE)).toEqual([
      { title: 'The Guide & more', url: 'https://docs.example.com/guide?a=1&b=2', snippet: 'Everything about zidane agents.' },
      { title: 'Plain link', url: 'https://plain.example/page', snippet: '' },
    ])
  })

  it('sends the query to the configured endpoint and formats the results as a numbered list', async () => {
    answers.set('/html/', { type: 'text/html', body: DDG_PAGE })
    const out = await run(duckDuckGoBackend({ endpoint: server.url('/html/'), region: 'us-en' }), { query: 'zidane agents' })
    expect(server.requests[0].url).toBe('/html/?q=zidane+agents&kl=us-en')
    expect(out).toBe([
      'Results for "zidane agents" (DuckDuckGo):',
      '',
      '1. The Guide & more',
      '   https://docs.example.com/guide?a=1&b=2',
      '   Everything about zidane agents.',
      '',
      '2. Plain link',
      '   https://plain.example/page',
    ].join('\n'))
  })

  it('honours the limit', async () => {
    answers.set('/html/', { type: 'text/html', body: DDG_PAGE })
    const out = await run(duckDuckGoBackend({ endpoint: server.url('/html/') }), { query: 'q', limit: 1 })
    expect(out).toContain('1. The Guide')
    expect(out).not.toContain('2. ')
  })

  it('reports a bot check and HTTP errors as errors', async () => {
    answers.set('/html/', { type: 'text/html', body: '<div class="anomaly-modal">Are you a robot?</div>' })
    await expect(run(duckDuckGoBackend({ endpoint: server.url('/html/') }), { query: 'q' })).rejects.toThrow(/bot check/)
    answers.set('/html/', { status: 503, type: 'text/plain', body: 'busy' })
    await expect(run(duckDuckGoBackend({ endpoint: server.url('/html/') }), { query: 'q' })).rejects.toThrow(/DuckDuckGo search failed: HTTP 503 \(busy\)/)
  })
})

describe('tavily backend', () => {
  it('posts the query with the key as a bearer token and maps the results', async () => {
    answers.set('/api/search', { body: JSON.stringify({ results: [{ title: 'T1', url: 'https://t.example/1', content: 'first' }, { title: 'no url' }] }) })
    const out = await run(tavilyBackend({ apiKey: 'tv-key', endpoint: server.url('/api') }), { query: 'what', limit: 3 })
    const request = server.requests[0]
    expect(request.method).toBe('POST')
    expect(request.headers.authorization).toBe('Bearer tv-key')
    expect(JSON.parse(request.body)).toEqual({ query: 'what', max_results: 3, search_depth: 'basic' })
    expect(out).toBe('Results for "what" (Tavily):\n\n1. T1\n   https://t.example/1\n   first')
  })

  it('reads TAVILY_API_KEY and fails clearly without a key', async () => {
    answers.set('/search', { body: '{"results":[]}' })
    vi.stubEnv('TAVILY_API_KEY', 'from-env')
    expect(await run(tavilyBackend({ endpoint: server.url('/') }), { query: 'x' })).toBe('No results for "x" (Tavily).')
    expect(server.requests[0].headers.authorization).toBe('Bearer from-env')
    vi.stubEnv('TAVILY_API_KEY', '')
    await expect(run(tavilyBackend({ endpoint: server.url('/') }), { query: 'x' })).rejects.toThrow(/set TAVILY_API_KEY/)
  })

  it('reports HTTP errors and malformed answers', async () => {
    const backend = tavilyBackend({ apiKey: 'k', endpoint: server.url('/') })
    answers.set('/search', { status: 401, body: '{"detail":"bad key"}' })
    await expect(run(backend, { query: 'x' })).rejects.toThrow(/Tavily search failed: HTTP 401 \(\{"detail":"bad key"\}\)/)
    answers.set('/search', { body: 'not json' })
    await expect(run(backend, { query: 'x' })).rejects.toThrow(/not JSON/)
    answers.set('/search', { body: '{"answer":"no list"}' })
    await expect(run(backend, { query: 'x' })).rejects.toThrow(/no results list/)
  })
})

describe('brave backend', () => {
  it('sends the query, count and subscription token, and strips highlight markup', async () => {
    answers.set('/res/v1/web/search', { body: JSON.stringify({ web: { results: [{ title: 'Brave <strong>hit</strong>', url: 'https://b.example/', description: 'A &amp; <strong>B</strong>' }] } }) })
    const out = await run(braveBackend({ apiKey: 'br-key', endpoint: server.url('/') }), { query: 'hit', limit: 20 })
    const request = server.requests[0]
    expect(request.url).toBe('/res/v1/web/search?q=hit&count=20')
    expect(request.headers['x-subscription-token']).toBe('br-key')
    expect(out).toBe('Results for "hit" (Brave):\n\n1. Brave hit\n   https://b.example/\n   A & B')
  })

  it('treats an answer without web results as no results, and needs a key', async () => {
    answers.set('/res/v1/web/search', { body: '{"query":{}}' })
    vi.stubEnv('BRAVE_SEARCH_API_KEY', '')
    vi.stubEnv('BRAVE_API_KEY', 'fallback')
    expect(await run(braveBackend({ endpoint: server.url('/') }), { query: 'none' })).toBe('No results for "none" (Brave).')
    expect(server.requests[0].headers['x-subscription-token']).toBe('fallback')
    vi.stubEnv('BRAVE_API_KEY', '')
    await expect(run(braveBackend({ endpoint: server.url('/') }), { query: 'none' })).rejects.toThrow(/set BRAVE_SEARCH_API_KEY/)
  })
})

describe('web_search tool', () => {
  const fixed = (endpoint = 'https://search.example/api'): WebSearchBackend & { calls: number } => {
    const backend = {
      name: 'Fixed',
      endpoint,
      calls: 0,
      search: async (_query: string, { limit }: { limit: number }) => {
        backend.calls++
        return Array.from({ length: 8 }, (_, i) => ({ title: `R${i + 1}`, url: `https://r.example/${i + 1}`, snippet: `s${i + 1}` })).slice(0, limit)
      },
    }
    return backend
  }

  it('returns the default number of results, and no more than asked even if the backend sends more', async () => {
    const greedy: WebSearchBackend = { name: 'Greedy', endpoint: 'https://g.example', search: async (_query, { signal }) => fixed().search('', { limit: 8, signal }) }
    expect((await run(greedy, { query: 'q' })).match(/^\d+\. /gm)).toHaveLength(5)
    expect((await run(greedy, { query: 'q', limit: 2 })).match(/^\d+\. /gm)).toHaveLength(2)
  })

  it('refuses a backend whose endpoint host is outside fetchUrlAllowHosts, without calling it', async () => {
    const backend = fixed()
    await expect(run(backend, { query: 'q' }, { fetchUrlAllowHosts: ['example.org'] })).rejects.toThrow(/"search\.example" is not covered by fetchUrlAllowHosts/)
    expect(backend.calls).toBe(0)
    expect(await run(backend, { query: 'q' }, { fetchUrlAllowHosts: ['EXAMPLE'] })).toContain('1. R1')
    expect(await run(backend, { query: 'q' }, { fetchUrlAllowHosts: [] })).toContain('1. R1')
  })

  it('gates the built-in backends by their endpoints too', async () => {
    answers.set('/html/', { type: 'text/html', body: DDG_PAGE })
    await expect(run(duckDuckGoBackend({ endpoint: server.url('/html/') }), { query: 'q' }, { fetchUrlAllowHosts: ['duckduckgo.com'] })).rejects.toThrow(/DuckDuckGo backend's host "127\.0\.0\.1"/)
    await expect(run(tavilyBackend({ apiKey: 'k' }), { query: 'q' }, { fetchUrlAllowHosts: ['duckduckgo.com'] })).rejects.toThrow(/"api\.tavily\.com" is not covered/)
    await expect(run(braveBackend({ apiKey: 'k' }), { query: 'q' }, { fetchUrlAllowHosts: ['duckduckgo.com'] })).rejects.toThrow(/"api\.search\.brave\.com" is not covered/)
    expect(server.requests).toHaveLength(0)
  })

  it('rejects an empty query and an out-of-range limit before searching', async () => {
    const backend = fixed()
    await expect(run(backend, { query: '   ' })).rejects.toThrow(/query/)
    await expect(run(backend, { query: 'q', limit: 0 })).rejects.toThrow(/limit/)
    await expect(run(backend, { query: 'q', limit: 21 })).rejects.toThrow(/limit/)
    expect(backend.calls).toBe(0)
  })

  it('passes the run signal to the backend and reports an abort', async () => {
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const hanging: WebSearchBackend = {
      name: 'Hanging',
      endpoint: 'https://h.example',
      search: (_query, { signal }) => new Promise((_resolve, reject) => {
        seen = signal
        signal.addEventListener('abort', () => reject(signal.reason))
        controller.abort()
      }),
    }
    await expect(run(hanging, { query: 'q' }, {}, controller.signal)).rejects.toThrow(/Hanging search was aborted/)
    expect(seen?.aborted).toBe(true)
  })

  it('times out a backend that never answers', async () => {
    const hanging: WebSearchBackend = {
      name: 'Slow',
      endpoint: 'https://s.example',
      search: (_query, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    }
    const tool = createWebSearchTool({ backend: hanging, timeoutMs: 50 })
    await expect(callTool(tool, { query: 'q' })).rejects.toThrow(/Slow search timed out after 50 ms/)
  })

  it('formats untidy results on one line each and falls back to the URL for a missing title', () => {
    expect(formatSearchResults('q', 'X', [{ title: '  ', url: 'https://u.example', snippet: 'multi\n  line' }]))
      .toBe('Results for "q" (X):\n\n1. https://u.example\n   https://u.example\n   multi line')
  })
})
