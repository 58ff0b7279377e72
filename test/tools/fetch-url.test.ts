import type { ResolvedAddress } from '../../src/tools/fetch-url'
import type { LocalServer } from '../support/local-http'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createFetchUrlTool } from '../../src/tools/fetch-url'
import { deferred } from '../support/helpers'
import { bareToolContext, callTool, startLocalServer } from '../support/local-http'

const PAGE = `<!doctype html>
<html><head><title>Guide &amp; Notes</title>
<style>body { color: red }</style>
<script>window.secret = "do not show"</script></head>
<body><h1>Getting started</h1>
<p>Read the <a href="/docs/intro">introduction</a> first.</p>
<ul><li>One</li><li>Two</li></ul>
</body></html>`

let server: LocalServer
let counter = 0
const stalled: Array<() => void> = []
const requestArrived = deferred()

beforeAll(async () => {
  server = await startLocalServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname
    const redirect = (location: string, status = 302) => response.writeHead(status, { location }).end()
    switch (path) {
      case '/page': return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
      case '/plain': return response.writeHead(200, { 'content-type': 'text/plain' }).end('just text')
      case '/json': return response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      case '/count': return response.writeHead(200, { 'content-type': 'text/plain' }).end(`count ${++counter}`)
      case '/gzip': return response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('unzipped text'))
      case '/latin1': return response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xE9]))
      case '/png': return response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4E, 0x47, 0, 0, 0]))
      case '/octet': return response.writeHead(200, { 'content-type': 'application/octet-stream' }).end('abc')
      case '/untyped-binary': return response.end(Buffer.from([1, 2, 0, 3, 4]))
      case '/untyped-html': return response.end('<html><body><p>sniffed</p></body></html>')
      case '/big': return response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000))
      case '/missing': return response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page')
      case '/hop1': return redirect('/hop2', 301)
      case '/hop2': return redirect(server.url('/plain'), 307)
      case '/loop': return redirect('/loop')
      case '/to-private': return redirect('http://10.0.0.1/admin')
      case '/to-metadata': return redirect(`http://metadata.test:${server.port}/latest`)
      case '/to-other': return redirect(`http://other.test:${server.port}/plain`)
      case '/to-sub': return redirect(`http://sub.allowed.test:${server.port}/plain`)
      case '/to-file': return redirect('file:///etc/passwd')
      case '/host': return response.writeHead(200, { 'content-type': 'text/plain' }).end(`host header: ${request.headers.host}`)
      case '/stall':
        requestArrived.resolve()
        stalled.push(() => response.destroy())
        return
      case '/stall-body':
        response.writeHead(200, { 'content-type': 'text/plain' })
        response.write('partial')
        stalled.push(() => response.destroy())
        return
      default: return response.writeHead(500).end()
    }
  })
})

afterAll(async () => {
  stalled.forEach(release => release())
  await server.close()
})

/** Test names resolve to the loopback test server, or to a blocked address. */
const testResolver = vi.fn(async (hostname: string): Promise<readonly ResolvedAddress[]> => {
  if (hostname === 'metadata.test')
    return [{ address: '169.254.169.254', family: 4 }]
  return [{ address: '127.0.0.1', family: 4 }]
})

const fetchTool = createFetchUrlTool({ allowLoopbackForTests: true, resolveHost: testResolver })
function get(path: string, behavior: Record<string, unknown> = {}, tool = fetchTool) {
  return callTool(tool, { url: path.startsWith('http') ? path : server.url(path) }, bareToolContext({ behavior }))
}

describe('fetch_url: reading pages', () => {
  it('turns HTML into readable text with a header, dropping scripts and styles and keeping links', async () => {
    const out = await get('/page')
    expect(out).toContain(`URL: ${server.url('/page')}`)
    expect(out).toContain('Status: 200 OK')
    expect(out).toContain('Title: Guide & Notes')
    expect(out).toContain('# Getting started')
    expect(out).toContain(`Read the [introduction](${server.url('/docs/intro')}) first.`)
    expect(out).toContain('- One\n- Two')
    expect(out).not.toMatch(/secret|color: red|<p>/)
  })

  it('returns text and JSON as they are, and sniffs untyped HTML', async () => {
    expect(await get('/plain')).toMatch(/Content-Type: text\/plain\n\njust text$/)
    expect(await get('/json')).toMatch(/\n\n\{"ok":true\}$/)
    expect(await get('/untyped-html')).toMatch(/\n\nsniffed$/)
  })

  it('decompresses gzip and honours the declared charset', async () => {
    expect(await get('/gzip')).toMatch(/\n\nunzipped text$/)
    expect(await get('/latin1')).toMatch(/\n\ncafé$/)
  })

  it('refuses binary content, declared or sniffed', async () => {
    await expect(get('/png')).rejects.toThrow(/binary content \(image\/png\)/)
    await expect(get('/octet')).rejects.toThrow(/binary content \(application\/octet-stream\)/)
    await expect(get('/untyped-binary')).rejects.toThrow(/binary content \(no content type\)/)
  })

  it('reports an HTTP error with its status and an excerpt of the body', async () => {
    await expect(get('/missing')).rejects.toThrow(/HTTP 404 Not Found from .*\/missing: no such page/)
  })

  it('caps the download and the returned text, saying so', async () => {
    const small = createFetchUrlTool({ allowLoopbackForTests: true, maxResponseBytes: 1000, maxOutputChars: 300 })
    const out = await get('/big', {}, small)
    expect(out).toContain('[Truncated: the response was larger than 1000 bytes; only the first 1000 bytes were read.]')
    expect(out).toContain('[Truncated: showing the first 300 of 1000 characters.]')
    expect(out).toContain(`\n\n${'x'.repeat(300)}\n\n[Truncated`)
    expect(out).not.toContain('x'.repeat(301))
  })
})

describe('fetch_url: redirects', () => {
  it('follows a redirect chain by hand and says where it started', async () => {
    const out = await get('/hop1')
    expect(out).toContain(`URL: ${server.url('/plain')}`)
    expect(out).toContain(`Redirected from: ${server.url('/hop1')}`)
    expect(out).toMatch(/just text$/)
  })

  it('gives up after maxRedirects', async () => {
    const tool = createFetchUrlTool({ allowLoopbackForTests: true, maxRedirects: 3 })
    await expect(get('/loop', {}, tool)).rejects.toThrow(/too many redirects \(more than 3\)/)
  })

  it('refuses a redirect to a private address mid-chain, before connecting to it', async () => {
    await expect(get('/to-private')).rejects.toThrow(/refused to fetch http:\/\/10\.0\.0\.1\/admin \(redirect 1\): 10\.0\.0\.1 is a private address/)
  })

  it('refuses a redirect to a host name that resolves to the metadata address', async () => {
    const before = server.requests.length
    await expect(get('/to-metadata')).rejects.toThrow(/\(redirect 1\): "metadata\.test" resolves to a blocked address: 169\.254\.169\.254 is the cloud metadata address/)
    expect(server.requests.slice(before).map(r => r.url)).toEqual(['/to-metadata'])
  })

  it('refuses a redirect to a non-http scheme', async () => {
    await expect(get('/to-file')).rejects.toThrow(/\(redirect 1\): only http and https/)
  })
})

describe('fetch_url: allowlist', () => {
  const allow = { fetchUrlAllowHosts: ['.Allowed.TEST'] }

  it('refuses the first URL when its host is not covered, without a request', async () => {
    const before = server.requests.length
    await expect(get(`http://other.test:${server.port}/plain`, allow)).rejects.toThrow(/"other\.test" is not covered by fetchUrlAllowHosts/)
    expect(server.requests.length).toBe(before)
  })

  it('refuses a redirect hop to a host outside the list', async () => {
    const before = server.requests.length
    await expect(get(`http://allowed.test:${server.port}/to-other`, allow)).rejects.toThrow(/other\.test:\d+\/plain \(redirect 1\): host "other\.test" is not covered/)
    expect(server.requests.slice(before).map(r => r.url)).toEqual(['/to-other'])
  })

  it('follows a redirect hop to a covered subdomain', async () => {
    expect(await get(`http://allowed.test:${server.port}/to-sub`, allow)).toMatch(/Redirected from: .*\n[\s\S]*just text$/)
  })
})

describe('fetch_url: the test-only loopback hatch', () => {
  it('opens 127.0.0.0/8 and ::1 only, never other ranges or mapped spellings of loopback', async () => {
    await expect(get('http://10.0.0.1/')).rejects.toThrow(/private/)
    await expect(get('http://169.254.169.254/')).rejects.toThrow(/metadata/)
    await expect(get('http://[::ffff:127.0.0.1]/')).rejects.toThrow(/IPv4-mapped form of 127\.0\.0\.1/)
    await expect(get('http://localhost/')).rejects.toThrow(/loopback host name/)
  })

  it('is off by default', async () => {
    await expect(get('/plain', {}, createFetchUrlTool())).rejects.toThrow(/127\.0\.0\.1 is a loopback address/)
  })
})

describe('fetch_url: connection pinning', () => {
  it('connects to the address the guard checked, sending the real Host header', async () => {
    testResolver.mockClear()
    // `pinned.test` does not exist in DNS: the request can only succeed by connecting to the checked address.
    const out = await get(`http://pinned.test:${server.port}/host`)
    expect(out).toMatch(new RegExp(`host header: pinned\\.test:${server.port}$`))
    expect(testResolver).toHaveBeenCalledTimes(1)
  })
})

describe('fetch_url: cache', () => {
  const clock = { now: 0 }
  const cached = createFetchUrlTool({ allowLoopbackForTests: true, cache: { now: () => clock.now, maxEntries: 2 } })
  const ttl = { fetchUrlCacheTtlMs: 1000 }

  it('serves a repeat fetch from the cache within the TTL and refetches after it', async () => {
    const first = await get('/count', ttl, cached)
    const before = server.requests.length
    clock.now = 999
    expect(await get('/count', ttl, cached)).toBe(first)
    expect(server.requests.length).toBe(before)
    clock.now = 1000
    const third = await get('/count', ttl, cached)
    expect(third).not.toBe(first)
    expect(server.requests.length).toBe(before + 1)
  })

  it('does not cache without a TTL', async () => {
    const a = await get('/count', {}, cached)
    const b = await get('/count', {}, cached)
    expect(a).not.toBe(b)
  })

  it('evicts the least recently used entry beyond the entry cap', async () => {
    const url = (path: string) => server.url(`${path}?n=${clock.now}`)
    clock.now = 10_000
    const a = await get(url('/count'), ttl, cached)
    await get(url('/plain'), ttl, cached)
    await get(url('/json'), ttl, cached)
    expect(await get(url('/count'), ttl, cached)).not.toBe(a)
  })

  it('caches neither errors nor redirected fetches', async () => {
    const before = server.requests.length
    await expect(get('/missing', ttl, cached)).rejects.toThrow(/404/)
    await expect(get('/missing', ttl, cached)).rejects.toThrow(/404/)
    await get('/hop2', ttl, cached)
    await get('/hop2', ttl, cached)
    expect(server.requests.length).toBe(before + 6)
  })

  it('checks the allowlist before answering from the cache', async () => {
    await get('/plain', ttl, cached)
    await expect(get('/plain', { ...ttl, fetchUrlAllowHosts: ['example.com'] }, cached)).rejects.toThrow(/not covered/)
  })
})

describe('fetch_url: abort and timeout', () => {
  it('stops when the run is aborted while waiting for the response', async () => {
    const controller = new AbortController()
    const pending = callTool(fetchTool, { url: server.url('/stall') }, bareToolContext({ signal: controller.signal }))
    await requestArrived.promise
    controller.abort()
    await expect(pending).rejects.toThrow(/fetch of .*\/stall was aborted/)
  })

  it('fails with a timeout when the response never comes', async () => {
    const quick = createFetchUrlTool({ allowLoopbackForTests: true, timeoutMs: 100 })
    await expect(get('/stall', {}, quick)).rejects.toThrow(/timed out after 100 ms/)
  })

  it('fails with a timeout when the body stalls half way', async () => {
    const quick = createFetchUrlTool({ allowLoopbackForTests: true, timeoutMs: 100 })
    await expect(get('/stall-body', {}, quick)).rejects.toThrow(/timed out after 100 ms/)
  })
})
