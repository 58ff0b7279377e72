import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { execFile } from 'node:child_process'
import { getEventListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { transportFetch } from '../../src/providers/shared/http-transport'
import { nodeHttpFetch } from '../../src/providers/shared/node-http-fetch'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'

// The HTTP client under the vendor SDKs: `node:http` when Node's fetch is
// untouched, the platform's fetch when a host changed how requests go out.
// Node's fetch sends `sec-fetch-mode: cors` on every request and `node:http`
// never does, so each server below can tell which one carried a request.

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const servers: Server[] = []
const cleanups: (() => void)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0))
    cleanup()
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  }
})

async function serve(handler: Handler): Promise<{ url: string, server: Server }> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

const SETTINGS = { idleTimeoutMs: 60_000 }

function carrier(headers: Record<string, string>): 'fetch' | 'node:http' {
  return headers['sec-fetch-mode'] === undefined ? 'node:http' : 'fetch'
}

function setEnv(name: string, value: string): void {
  const before = process.env[name]
  process.env[name] = value
  cleanups.push(() => {
    if (before === undefined)
      delete process.env[name]
    else
      process.env[name] = before
  })
}

describe('which client carries a provider\'s requests', () => {
  it('node:http for Anthropic, Chat Completions and Responses while Node\'s fetch is untouched', async () => {
    const claude = await startFakeAnthropic()
    const gpt = await startFakeOpenAI()
    cleanups.push(() => void claude.close(), () => void gpt.close())
    claude.enqueue({ type: 'turn', turn: { text: 'from claude' } })
    gpt.enqueue({ type: 'turn', turn: { text: 'from chat' } })

    const first = await createAgent({ provider: anthropic({ baseURL: claude.url, apiKey: 'k' }) }).run({ prompt: 'hi' })
    const second = await createAgent({ provider: openai({ baseURL: gpt.url, apiKey: 'k' }) }).run({ prompt: 'hi' })
    expect([first.text, second.text]).toEqual(['from claude', 'from chat'])
    // The Responses API's request goes out the same way; its answer (a 400 here) is not the point.
    gpt.enqueue({ type: 'error', status: 400 })
    await createAgent({ provider: openai({ api: 'responses', baseURL: gpt.url, apiKey: 'k' }) }).run({ prompt: 'hi' }).catch(() => {})
    expect(claude.requests.map(r => carrier(r.headers))).toEqual(['node:http'])
    expect(gpt.requests.map(r => [r.path, carrier(r.headers)])).toEqual([['/v1/chat/completions', 'node:http'], ['/v1/responses', 'node:http']])
  })

  it('the platform\'s fetch under ZIDANE_HTTP_CLIENT=fetch', async () => {
    setEnv('ZIDANE_HTTP_CLIENT', 'fetch')
    const claude = await startFakeAnthropic()
    cleanups.push(() => void claude.close())
    claude.enqueue({ type: 'turn', turn: { text: 'one' } })
    await createAgent({ provider: anthropic({ baseURL: claude.url, apiKey: 'k' }) }).run({ prompt: 'hi' })
    expect(claude.requests.map(r => carrier(r.headers))).toEqual(['fetch'])
  })

  it('a replaced globalThis.fetch, called for every request', async () => {
    const claude = await startFakeAnthropic()
    cleanups.push(() => void claude.close())
    claude.enqueue({ type: 'turn', turn: { text: 'one' } }, { type: 'turn', turn: { text: 'two' } })
    const nodeFetch = globalThis.fetch
    const wrapper = vi.fn((input: string | URL | Request, init?: RequestInit) => nodeFetch(input, init))
    globalThis.fetch = wrapper as typeof fetch
    cleanups.push(() => {
      globalThis.fetch = nodeFetch
    })
    const agent = createAgent({ provider: anthropic({ baseURL: claude.url, apiKey: 'k' }) })
    await agent.run({ prompt: 'one' })
    await agent.run({ prompt: 'two' })
    expect(wrapper).toHaveBeenCalledTimes(2)
    expect(claude.requests.map(r => carrier(r.headers))).toEqual(['fetch', 'fetch'])
  })

  it('fetch through a host\'s global dispatcher; node:http again once the default is back', async () => {
    const key = Symbol.for('undici.globalDispatcher.1')
    const global = globalThis as unknown as Record<symbol, { dispatch: (...args: unknown[]) => boolean }>
    // Node's fetch installs its default dispatcher on first use.
    await fetch('data:,ready')
    const nodeDefault = global[key]!
    let dispatched = 0
    const hostDispatcher = {
      dispatch: (...args: unknown[]) => {
        dispatched++
        return nodeDefault.dispatch(...args)
      },
      on: () => hostDispatcher,
      once: () => hostDispatcher,
      off: () => hostDispatcher,
    }
    global[key] = hostDispatcher
    cleanups.push(() => {
      global[key] = nodeDefault
    })
    const gpt = await startFakeOpenAI()
    cleanups.push(() => void gpt.close())
    gpt.enqueue({ type: 'turn', turn: { text: 'one' } }, { type: 'turn', turn: { text: 'two' } })
    const agent = createAgent({ provider: openai({ baseURL: gpt.url, apiKey: 'k' }) })
    await agent.run({ prompt: 'one' })
    expect(dispatched).toBe(1)
    global[key] = nodeDefault
    await agent.run({ prompt: 'two' })
    expect(dispatched).toBe(1)
    expect(gpt.requests.map(r => carrier(r.headers))).toEqual(['fetch', 'node:http'])
  })

  it('fetch for a body node:http is not given (a stream) and for a non-HTTP URL', async () => {
    const { url } = await serve((request, response) => {
      response.end(carrier(request.headers as Record<string, string>))
    })
    const streamed = await transportFetch(url, {
      method: 'POST',
      body: new Blob(['x']).stream(),
      duplex: 'half',
    } as RequestInit)
    expect(await streamed.text()).toBe('fetch')
    expect(await (await transportFetch(url, { method: 'POST', body: 'x' })).text()).toBe('node:http')
    expect(await (await transportFetch('data:,inline')).text()).toBe('inline')
    // Credentials in the URL: fetch refuses them, where node:http would send them as Basic auth.
    const withCredentials = new URL(url)
    withCredentials.username = 'user'
    await expect(transportFetch(withCredentials.href)).rejects.toThrow(TypeError)
  })

  it('fetch for a non-standard method in lower case, which node:http would send in capitals', async () => {
    // A raw server: Node's own HTTP parser refuses a lower-case method before a handler sees it.
    const lines: string[] = []
    const server = createTcpServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1')
        lines.push(`${text.slice(0, text.indexOf(' '))} ${/^sec-fetch-mode:/im.test(text) ? 'fetch' : 'node:http'}`)
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
      })
      socket.on('error', () => {})
    })
    cleanups.push(() => server.close())
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    for (const method of ['propfind', 'PATCH', 'post', 'Delete', 'PROPFIND'])
      await (await transportFetch(url, { method, body: method === 'Delete' ? undefined : 'x' })).arrayBuffer()
    expect(lines).toEqual(['propfind fetch', 'PATCH node:http', 'POST node:http', 'DELETE node:http', 'PROPFIND node:http'])
  })
})

describe('a request over node:http', () => {
  it('refuses a GET with a body, and adds the headers fetch adds', async () => {
    const seen: IncomingMessage['headers'][] = []
    const methods: string[] = []
    const { url } = await serve((request, response) => {
      seen.push(request.headers)
      methods.push(request.method!)
      request.resume()
      request.on('end', () => response.end())
    })
    await expect(nodeHttpFetch(new URL(url), { body: 'x' }, SETTINGS)).rejects.toThrow(TypeError)
    await nodeHttpFetch(new URL(url), { method: 'patch', body: 'text' }, SETTINGS)
    await nodeHttpFetch(new URL(url), { method: 'post', body: 'text', headers: { 'content-type': 'application/json', 'accept': 'text/event-stream', 'user-agent': 'sdk/1' } }, SETTINGS)
    // node:http writes every method in capitals, where fetch would send `patch` as written.
    expect(methods).toEqual(['PATCH', 'POST'])
    expect(seen[0]).toMatchObject({ 'accept': '*/*', 'user-agent': 'node', 'content-type': 'text/plain;charset=UTF-8' })
    expect(seen[1]).toMatchObject({ 'accept': 'text/event-stream', 'user-agent': 'sdk/1', 'content-type': 'application/json' })
  })

  it('trims header values as Headers does, and refuses one with a line break inside: no listener left, a later abort harmless', async () => {
    const { url } = await serve((request, response) => response.end(String(request.headers['x-api-key'])))
    expect(await (await nodeHttpFetch(new URL(url), { headers: { 'x-api-key': ' sk-1\n' } }, SETTINGS)).text()).toBe('sk-1')
    const controller = new AbortController()
    const refused = await nodeHttpFetch(new URL(url), { headers: { 'x-api-key': 'sk\nInjected: yes' }, signal: controller.signal }, SETTINGS).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TypeError)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    controller.abort()
  })

  it('takes headers in any form fetch takes (a Map too), and refuses what fetch refuses: TRACE, transfer-encoding, upgrade', async () => {
    const { url } = await serve((request, response) => response.end(String(request.headers['x-api-key'])))
    const base = new URL(url)
    expect(await (await nodeHttpFetch(base, { headers: new Map([['x-api-key', 'from-a-map']]) as unknown as RequestInit['headers'] }, SETTINGS)).text()).toBe('from-a-map')
    await expect(nodeHttpFetch(base, { method: 'TRACE' }, SETTINGS)).rejects.toThrow(TypeError)
    await expect(nodeHttpFetch(base, { method: 'POST', body: 'x', headers: { 'transfer-encoding': 'chunked' } }, SETTINGS)).rejects.toThrow(TypeError)
    await expect(nodeHttpFetch(base, { headers: { connection: 'upgrade', upgrade: 'websocket' } }, SETTINGS)).rejects.toThrow(TypeError)
  })

  it('sends the method, headers of every form and the body with its length', async () => {
    const seen: { method?: string, headers: IncomingMessage['headers'], body: string }[] = []
    const { url } = await serve((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        seen.push({ method: request.method, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
        response.end('ok')
      })
    })
    const base = new URL(url)
    await nodeHttpFetch(base, { method: 'post', headers: new Headers({ 'X-One': 'a', 'x-two': 'b' }), body: 'héllo' }, SETTINGS)
    await nodeHttpFetch(base, { method: 'PUT', headers: [['x-one', 'a'], ['X-One', 'b']], body: new TextEncoder().encode('bytes') }, SETTINGS)
    await nodeHttpFetch(base, { headers: { 'accept-encoding': 'identity' } }, SETTINGS)
    expect(seen[0]).toMatchObject({ method: 'POST', body: 'héllo', headers: { 'x-one': 'a', 'x-two': 'b', 'content-length': '6', 'accept-encoding': 'gzip, deflate' } })
    expect(seen[1]).toMatchObject({ method: 'PUT', body: 'bytes', headers: { 'x-one': 'a, b', 'content-length': '5' } })
    expect(seen[2]).toMatchObject({ method: 'GET', body: '', headers: { 'accept-encoding': 'identity' } })
    expect(seen[2]!.headers['content-length']).toBeUndefined()
  })

  it('answers with the status, reason, headers, URL and a body read as it streams', async () => {
    let finish: () => void = () => {}
    const { url } = await serve((_request, response) => {
      response.writeHead(201, 'Made', [['x-a', '1'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']])
      response.write('first ')
      finish = () => response.end('last')
    })
    const answer = await nodeHttpFetch(new URL(`${url}/path?q=1#part`), undefined, SETTINGS)
    expect([answer.status, answer.statusText, answer.ok, answer.url]).toEqual([201, 'Made', true, `${url}/path?q=1`])
    expect(answer.headers.get('x-a')).toBe('1')
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    const reader = answer.body!.getReader()
    // The first bytes arrive while the server still holds the response open.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first ')
    finish()
    const rest: string[] = []
    for (let read = await reader.read(); !read.done; read = await reader.read())
      rest.push(new TextDecoder().decode(read.value))
    expect(rest.join('')).toBe('last')
  })

  it('decodes gzip, deflate and brotli bodies, and leaves an unknown coding as it came', async () => {
    const text = 'a body worth compressing '.repeat(200)
    const encoded: Record<string, Buffer> = {
      'gzip': gzipSync(text),
      'x-gzip': gzipSync(text),
      'deflate': deflateSync(text),
      'br': brotliCompressSync(text),
      'zstd-ish': Buffer.from('raw'),
    }
    const { url } = await serve((request, response) => {
      const coding = request.url!.slice(1)
      response.writeHead(200, { 'content-encoding': coding })
      response.end(encoded[coding])
    })
    for (const coding of ['gzip', 'x-gzip', 'deflate', 'br'])
      expect(await (await nodeHttpFetch(new URL(`${url}/${coding}`), undefined, SETTINGS)).text()).toBe(text)
    expect(await (await nodeHttpFetch(new URL(`${url}/zstd-ish`), undefined, SETTINGS)).text()).toBe('raw')
  })

  it('decodes raw deflate sent as deflate, chained codings in reverse, an empty compressed body as empty, and refuses six codings', async () => {
    const text = 'chained and raw '.repeat(100)
    const bodies: Record<string, [string, Buffer]> = {
      '/raw': ['deflate', deflateRawSync(text)],
      '/chain': ['deflate, gzip', gzipSync(deflateSync(text))],
      '/raw-chain': ['deflate, gzip', gzipSync(deflateRawSync(text))],
      '/twice': ['gzip, gzip', gzipSync(gzipSync(text))],
      '/empty': ['gzip', Buffer.alloc(0)],
      '/empty-br': ['br', Buffer.alloc(0)],
      '/six': ['gzip, gzip, gzip, gzip, gzip, gzip', Buffer.from('x')],
    }
    const { url } = await serve((request, response) => {
      const [coding, body] = bodies[request.url!]!
      response.writeHead(200, { 'content-encoding': coding })
      response.end(body)
    })
    const read = (path: string) => nodeHttpFetch(new URL(`${url}${path}`), undefined, SETTINGS).then(answer => answer.text())
    expect(await read('/raw')).toBe(text)
    expect(await read('/chain')).toBe(text)
    expect(await read('/raw-chain')).toBe(text)
    expect(await read('/twice')).toBe(text)
    expect(await read('/empty')).toBe('')
    expect(await read('/empty-br')).toBe('')
    await expect(read('/six')).rejects.toThrow('fetch failed')
  })

  it('gives a null body for 204 and 304 and for HEAD', async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(request.url === '/204' ? 204 : request.url === '/304' ? 304 : 200)
      response.end()
    })
    expect((await nodeHttpFetch(new URL(`${url}/204`), undefined, SETTINGS)).body).toBeNull()
    expect((await nodeHttpFetch(new URL(`${url}/304`), undefined, SETTINGS)).body).toBeNull()
    expect((await nodeHttpFetch(new URL(`${url}/200`), { method: 'HEAD' }, SETTINGS)).body).toBeNull()
  })

  it('follows a 307 with its method and body, as fetch does', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(307, { location: '/here' })
        response.end()
        return
      }
      let body = ''
      request.on('data', (chunk: Buffer) => {
        body += chunk
      })
      request.on('end', () => response.end(`${request.method} ${request.url} ${body}`))
    })
    const answer = await nodeHttpFetch(new URL(`${url}/moved`), { method: 'POST', body: 'payload' }, SETTINGS)
    expect(await answer.text()).toBe('POST /here payload')
    expect(answer.redirected).toBe(true)
  })

  it('a redirect whose own body is cut short is still followed, and the cut body troubles nobody', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(307, { 'location': '/here', 'content-length': '100' })
        response.write('x', () => setTimeout(() => response.socket?.destroy(), 20))
        return
      }
      response.end('arrived')
    })
    const answer = await nodeHttpFetch(new URL(`${url}/moved`), undefined, SETTINGS)
    expect(await answer.text()).toBe('arrived')
    // Long enough for the cut to reach the dropped body: the test fails on any error it raises.
    await new Promise(resolve => setTimeout(resolve, 100))
  })

  it('turns a POST answered by 303 into one GET without the body, and sends the POST once', async () => {
    const seen: string[] = []
    const { url } = await serve((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => {
        body += chunk
      })
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${body} ${request.headers['content-type'] ?? '-'}`)
        if (request.url === '/form') {
          response.writeHead(303, { location: '/done' })
          response.end()
          return
        }
        response.end('done')
      })
    })
    const answer = await nodeHttpFetch(new URL(`${url}/form`), { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }, SETTINGS)
    expect(await answer.text()).toBe('done')
    expect(answer.redirected).toBe(true)
    expect(answer.url).toBe(`${url}/done`)
    expect(seen).toEqual(['POST /form {"a":1} application/json', 'GET /done  -'])
  })

  it('leaves credentials behind on a redirect to another origin, and keeps them on the same one', async () => {
    const other = await serve((request, response) => response.end(JSON.stringify([request.headers.authorization ?? null, request.headers['x-api-key'] ?? null, request.headers['x-trace'] ?? null])))
    const { url } = await serve((request, response) => {
      if (request.url === '/away') {
        response.writeHead(302, { location: `${other.url}/landing` })
        response.end()
        return
      }
      if (request.url === '/near') {
        response.writeHead(307, { location: '/landing' })
        response.end()
        return
      }
      response.end(JSON.stringify([request.headers.authorization ?? null, request.headers['x-api-key'] ?? null, request.headers['x-trace'] ?? null]))
    })
    const headers = { 'authorization': 'Bearer t', 'x-api-key': 'sk', 'x-trace': 'kept' }
    expect(await (await nodeHttpFetch(new URL(`${url}/away`), { headers }, SETTINGS)).json()).toEqual([null, null, 'kept'])
    expect(await (await nodeHttpFetch(new URL(`${url}/near`), { headers }, SETTINGS)).json()).toEqual(['Bearer t', 'sk', 'kept'])
  })

  it('stops after 20 redirects, and never reads a redirect\'s own body', async () => {
    let written = 0
    const { url } = await serve((request, response) => {
      if (request.url === '/endless') {
        // A redirect whose body never ends: none of it may be read.
        response.writeHead(302, { location: '/loop/0' })
        const chunk = Buffer.alloc(64 * 1024)
        const pump = (): void => {
          while (response.write(chunk)) written += chunk.length
          response.once('drain', pump)
        }
        pump()
        return
      }
      const n = Number(request.url!.split('/').at(-1))
      response.writeHead(302, { location: `/loop/${n + 1}` })
      response.end()
    })
    const looped = await nodeHttpFetch(new URL(`${url}/loop/0`), undefined, SETTINGS).catch((error: unknown) => error)
    expect(looped).toBeInstanceOf(TypeError)
    expect(((looped as Error).cause as Error).message).toBe('more than 20 redirects')
    await nodeHttpFetch(new URL(`${url}/endless`), undefined, SETTINGS).catch(() => {})
    const afterFollow = written
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(written - afterFollow).toBeLessThan(16 * 1024 * 1024)
  })

  it('refuses a redirect to a URL with credentials, and reads a UTF-8 location as UTF-8', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/creds') {
        response.writeHead(302, { location: `http://user:pass@127.0.0.1:${new URL(url).port}/landing` })
        response.end()
        return
      }
      if (request.url === '/utf8') {
        // The raw bytes of "/ü" in UTF-8, as a server writes them.
        response.setHeader('location', Buffer.from('/ü', 'utf8').toString('latin1'))
        response.writeHead(302)
        response.end()
        return
      }
      response.end(`${request.url} ${request.headers.authorization ?? 'no auth'}`)
    })
    const withCredentials = await nodeHttpFetch(new URL(`${url}/creds`), undefined, SETTINGS).catch((error: unknown) => error)
    expect(withCredentials).toBeInstanceOf(TypeError)
    expect(await (await nodeHttpFetch(new URL(`${url}/utf8`), undefined, SETTINGS)).text()).toBe('/%C3%BC no auth')
  })

  it('gives a server its idle time for the whole head, not per byte of it', async () => {
    const server = createTcpServer((socket) => {
      socket.on('error', () => {})
      socket.once('data', () => {
        const head = `HTTP/1.1 200 OK\r\nx-slow: ${'a'.repeat(1000)}`
        let at = 0
        const drip = setInterval(() => {
          if (socket.destroyed || at >= head.length) {
            clearInterval(drip)
            return
          }
          socket.write(head[at++]!)
        }, 20)
      })
    })
    cleanups.push(() => server.close())
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const dripped = await nodeHttpFetch(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), undefined, { idleTimeoutMs: 300 }).catch((error: unknown) => error)
    expect(((dripped as Error).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT')
  })

  it('lets the connection go when its Response is collected unread', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const state = { closed: false }
    const { url } = await serve((request, response) => {
      response.writeHead(200)
      const tick = setInterval(() => response.write('x'.repeat(1024)), 20)
      request.socket.once('close', () => {
        clearInterval(tick)
        state.closed = true
      })
    })
    await (async () => {
      // The Response is dropped when this function returns.
      await nodeHttpFetch(new URL(url), undefined, SETTINGS)
    })()
    // Collection and its callbacks come when they come; the test's timeout bounds the wait.
    while (!state.closed) {
      gc()
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    expect(state.closed).toBe(true)
  }, 20_000)

  it('fails a 101 upgrade nobody asked for instead of waiting for ever', async () => {
    const url = await rawServer('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n')
    const upgraded = await nodeHttpFetch(new URL(url), undefined, SETTINGS).catch((error: unknown) => error)
    expect(upgraded).toBeInstanceOf(TypeError)
    expect((upgraded as Error).message).toBe('fetch failed')
  })

  it('lets the connection go when the server answered before taking the whole request body', async () => {
    let closed!: () => void
    const serverClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    let serverSide: Socket | undefined
    let received = 0
    const server = createTcpServer((socket) => {
      serverSide = socket
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length
      })
      socket.once('data', () => {
        socket.write('HTTP/1.1 413 Too Large\r\ncontent-length: 3\r\n\r\nbig')
        // Reads nothing more: the client's writes back up.
        socket.pause()
      })
      socket.on('error', () => {})
      socket.once('close', () => closed())
    })
    cleanups.push(() => server.close())
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const answer = await nodeHttpFetch(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), { method: 'POST', body: Buffer.alloc(32 * 1024 * 1024) }, SETTINGS)
    expect([answer.status, await answer.text()]).toEqual([413, 'big'])
    // Reading again, the server finds the connection closed before the whole body: kept alive, it would have taken all 32 MB.
    serverSide!.resume()
    await serverClosed
    expect(received).toBeLessThan(32 * 1024 * 1024)
  })

  it('does not send again a request the server had begun to answer before the connection broke', async () => {
    let posts = 0
    const connections = new Set<Socket>()
    const server = createTcpServer((socket) => {
      socket.on('error', () => {})
      socket.on('data', () => {
        posts++
        if (!connections.has(socket)) {
          connections.add(socket)
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok')
          return
        }
        // The second request on the kept-alive connection: half an answer, then a reset.
        socket.write('HTTP/1.1 200 OK\r\ncontent-le', () => socket.resetAndDestroy())
      })
    })
    cleanups.push(() => server.close())
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
    expect(await (await nodeHttpFetch(url, { method: 'POST', body: 'a' }, SETTINGS)).text()).toBe('ok')
    const broken = await nodeHttpFetch(url, { method: 'POST', body: 'b' }, SETTINGS).catch((error: unknown) => error)
    expect(broken).toBeInstanceOf(TypeError)
    expect(posts).toBe(2)
  })

  it('rejects a refused connection as fetch does, and a status outside 200-599 (which fetch would pass on)', async () => {
    const closed = await serve(() => {})
    const port = new URL(closed.url).port
    servers.splice(0).forEach(server => server.close())
    const refused = await nodeHttpFetch(new URL(`http://127.0.0.1:${port}/`), undefined, SETTINGS).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TypeError)
    expect((refused as Error).message).toBe('fetch failed')
    expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED')

    const { url } = await serve((_request, response) => {
      response.writeHead(200)
      response.end()
    })
    const odd = await rawServer('HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n')
    const outOfRange = await nodeHttpFetch(new URL(odd), undefined, SETTINGS).catch((error: unknown) => error)
    expect(outOfRange).toBeInstanceOf(TypeError)
    expect(((outOfRange as Error).cause as Error).name).toBe('RangeError')
    expect((await nodeHttpFetch(new URL(url), undefined, SETTINGS)).status).toBe(200)
  })

  it('errors the body with "terminated" when the connection drops before its end', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': '100' })
      response.write('partial', () => response.socket?.destroy())
    })
    const answer = await nodeHttpFetch(new URL(url), undefined, SETTINGS)
    const failure = await answer.text().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as Error).message).toBe('terminated')
  })
})

describe('cancelling and waiting', () => {
  it('rejects with the signal\'s reason before the answer, and errors the body with it after; no listener is left', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/stall')
        return
      response.writeHead(200)
      response.write('some')
    })
    const early = new AbortController()
    const pending = nodeHttpFetch(new URL(`${url}/stall`), { signal: early.signal }, SETTINGS)
    const reason = new Error('stop now')
    early.abort(reason)
    await expect(pending).rejects.toBe(reason)
    expect(getEventListeners(early.signal, 'abort')).toHaveLength(0)

    const late = new AbortController()
    const answer = await nodeHttpFetch(new URL(`${url}/body`), { signal: late.signal }, SETTINGS)
    const reader = answer.body!.getReader()
    await reader.read()
    late.abort()
    const failure = await reader.read().catch((error: unknown) => error)
    expect((failure as Error).name).toBe('AbortError')
    expect(getEventListeners(late.signal, 'abort')).toHaveLength(0)

    const already = new AbortController()
    already.abort(reason)
    await expect(nodeHttpFetch(new URL(url), { signal: already.signal }, SETTINGS)).rejects.toBe(reason)
  })

  it('removes its abort listener once a body has been read to the end', async () => {
    const { url } = await serve((_request, response) => response.end('all'))
    const controller = new AbortController()
    const answer = await nodeHttpFetch(new URL(url), { signal: controller.signal }, SETTINGS)
    expect(await answer.text()).toBe('all')
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('gives up on a server silent before its headers or in its body, after the idle timeout', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/body') {
        response.writeHead(200)
        response.write('start')
      }
    })
    const short = { idleTimeoutMs: 150 }
    const beforeHeaders = await nodeHttpFetch(new URL(`${url}/headers`), undefined, short).catch((error: unknown) => error)
    expect(((beforeHeaders as Error).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT')
    const answer = await nodeHttpFetch(new URL(`${url}/body`), undefined, short)
    const inBody = await answer.text().catch((error: unknown) => error)
    expect((inBody as Error).message).toBe('terminated')
    expect(((inBody as Error).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT')
  })

  it('does not count the reader\'s own pauses as the server\'s silence', async () => {
    const size = 4 * 1024 * 1024
    const { url } = await serve((_request, response) => response.end(Buffer.alloc(size, 98)))
    const answer = await nodeHttpFetch(new URL(url), undefined, { idleTimeoutMs: 150 })
    const reader = answer.body!.getReader()
    let total = (await reader.read()).value!.byteLength
    await new Promise(resolve => setTimeout(resolve, 600))
    for (let read = await reader.read(); !read.done; read = await reader.read())
      total += read.value.byteLength
    expect(total).toBe(size)
  })

  it('sends again once, on a fresh connection, when a kept-alive one was closed by the server as it was reused', async () => {
    const connections = new Set<Socket>()
    let handled = 0
    const { url } = await serve((request, response) => {
      handled++
      const socket = request.socket
      // The second request on a connection finds it closed, as a server's idle timeout would leave it.
      if (connections.has(socket)) {
        socket.destroy()
        return
      }
      connections.add(socket)
      response.end(`answer ${handled}`)
    })
    expect(await (await nodeHttpFetch(new URL(url), { method: 'POST', body: 'a' }, SETTINGS)).text()).toBe('answer 1')
    expect(await (await nodeHttpFetch(new URL(url), { method: 'POST', body: 'b' }, SETTINGS)).text()).toBe('answer 3')
    expect(connections.size).toBe(2)
  })

  it('reads the socket only as far ahead of the reader as the stream holds', async () => {
    const total = 256 * 1024 * 1024
    let written = 0
    const { url } = await serve((_request, response) => {
      const chunk = Buffer.alloc(1024 * 1024, 97)
      response.writeHead(200, { 'content-length': String(total) })
      const pump = (): void => {
        while (written < total) {
          written += chunk.length
          if (!response.write(chunk)) {
            response.once('drain', pump)
            return
          }
        }
        response.end()
      }
      pump()
    })
    const answer = await nodeHttpFetch(new URL(url), undefined, SETTINGS)
    const reader = answer.body!.getReader()
    await reader.read()
    // Give the server every chance to push: only the socket buffers and one stream's worth may be taken.
    await new Promise(resolve => setTimeout(resolve, 300))
    expect(written).toBeLessThan(64 * 1024 * 1024)
    await reader.cancel()
  })
})

/** A TCP server answering every connection with `reply` as raw bytes, then closing it. */
async function rawServer(reply: string | Uint8Array): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.once('data', () => socket.end(reply))
    socket.on('error', () => {})
  })
  cleanups.push(() => server.close())
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

describe('hostile answers', () => {
  it('any bytes a server sends end in a Response or a TypeError, never a hang or a crash', async () => {
    const head = fc.constantFrom('HTTP/1.1 200 OK\r\n', 'HTTP/1.1 500 x\r\n', 'HTTP/1.0 204\r\n', 'HTTP/1.1 302 Found\r\n', '')
    const header = fc.constantFrom('content-length: 5\r\n', 'content-length: -1\r\n', 'transfer-encoding: chunked\r\n', 'content-encoding: gzip\r\n', 'content-encoding: br\r\n', 'location: /x\r\n', 'x: \u00FF\r\n', 'bad header\r\n')
    await fc.assert(fc.asyncProperty(head, fc.array(header, { maxLength: 4 }), fc.uint8Array({ maxLength: 64 }), async (status, headers, tail) => {
      const reply = Buffer.concat([Buffer.from(`${status}${headers.join('')}\r\n`, 'latin1'), tail])
      const url = await rawServer(reply)
      const outcome = await nodeHttpFetch(new URL(url), undefined, { idleTimeoutMs: 2_000 })
        .then(answer => answer.arrayBuffer().then(() => 'read', (error: unknown) => error))
        .catch((error: unknown) => error)
      if (outcome !== 'read')
        expect(outcome).toBeInstanceOf(TypeError)
    }), { numRuns: 60 })
  }, 60_000)
})

describe('over TLS', () => {
  const tls = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url))

  it('refuses a certificate nobody trusts with the same cause fetch gives', async () => {
    const server = createHttpsServer({ key: readFileSync(tls('key.pem')), cert: readFileSync(tls('cert.pem')) }, (_request, response) => response.end('secret'))
    servers.push(server)
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`
    const ours = await nodeHttpFetch(new URL(url), undefined, SETTINGS).catch((error: unknown) => error) as Error
    const theirs = await fetch(url).catch((error: unknown) => error) as Error
    expect(ours).toBeInstanceOf(TypeError)
    expect(ours.message).toBe(theirs.message)
    expect((ours.cause as NodeJS.ErrnoException).code).toBe((theirs.cause as NodeJS.ErrnoException).code)
    expect((ours.cause as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT')
  })

  it('runs an agent over node:https against a server whose CA the process trusts (NODE_EXTRA_CA_CERTS), brotli body included', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const script = `
      import { readFileSync } from 'node:fs'
      import { createServer } from 'node:https'
      import { brotliCompressSync } from 'node:zlib'
      const { startFakeAnthropic } = await import('./test/support/fake-anthropic.ts')
      const { transportFetch } = await import('./src/providers/shared/http-transport.ts')
      const { createAgent } = await import('./src/index.ts')
      const { anthropic } = await import('./src/providers/anthropic/index.ts')
      const seen = []
      const tls = { key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) }
      // A TLS front for the fake Anthropic server, passing each request on and its answer back.
      const fake = await startFakeAnthropic()
      fake.enqueue({ type: 'turn', turn: { text: 'over tls' } })
      const front = createServer(tls, async (request, response) => {
        seen.push({ path: request.url, encoding: request.headers['accept-encoding'], fetch: request.headers['sec-fetch-mode'] !== undefined })
        if (request.url === '/br') {
          response.writeHead(200, { 'content-encoding': 'br' })
          response.end(brotliCompressSync('decoded'))
          return
        }
        const chunks = []
        for await (const chunk of request) chunks.push(chunk)
        const answer = await fetch(fake.url + request.url, { method: request.method, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') })
        response.end(Buffer.from(await answer.arrayBuffer()))
      })
      await new Promise(resolve => front.listen(0, '127.0.0.1', resolve))
      const base = 'https://127.0.0.1:' + front.address().port
      const run = await createAgent({ provider: anthropic({ baseURL: base, apiKey: 'k' }) }).run({ prompt: 'hi' })
      const br = await (await transportFetch(base + '/br')).text()
      console.log(JSON.stringify({ text: run.text, br, seen }))
      front.close()
      await fake.close()
    `
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: tls('cert.pem'), TLS_KEY: tls('key.pem'), TLS_CERT: tls('cert.pem'), NODE_OPTIONS: '' },
      timeout: 30_000,
    })
    expect(JSON.parse(stdout)).toEqual({
      text: 'over tls',
      br: 'decoded',
      seen: [
        { path: '/v1/messages', encoding: 'br, gzip, deflate', fetch: false },
        { path: '/br', encoding: 'br, gzip, deflate', fetch: false },
      ],
    })
  }, 30_000)
})
