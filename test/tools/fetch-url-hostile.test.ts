/**
 * fetch_url against servers written to hurt, all on 127.0.0.1: compression
 * bombs that never end, bodies and headers that never finish, oversized and
 * malformed headers, charsets and BOMs that lie, binary dressed as HTML.
 * Each ends as a bounded result or a clear error; nothing asserts on time.
 */
import type { AddressInfo, Server, Socket } from 'node:net'
import type { Transform } from 'node:stream'
import type { LocalServer } from '../support/local-http'
import { createServer } from 'node:net'
import { constants, createBrotliCompress, createDeflate, createGzip, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchUrlTool } from '../../src/tools/fetch-url'
import { bareToolContext, callTool, startLocalServer } from '../support/local-http'

const MiB = 1024 * 1024
const ZEROS = Buffer.alloc(MiB, 'a')

let server: LocalServer
let raw: Server
let rawPort = 0
const sockets = new Set<Socket>()
/** Decompressed MiB each bomb has produced so far, by path. */
const bombMiB = new Map<string, number>()

/** Stream an endless run of 'a's through `encoder`, writing only as fast as the client reads. */
function bomb(path: string, encoder: Transform, encoding: string, response: import('node:http').ServerResponse) {
  response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding })
  encoder.pipe(response)
  bombMiB.set(path, 0)
  const pump = () => {
    while (encoder.write(ZEROS))
      bombMiB.set(path, (bombMiB.get(path) ?? 0) + 1)
    encoder.once('drain', pump)
  }
  response.on('close', () => encoder.destroy())
  pump()
}

beforeAll(async () => {
  server = await startLocalServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname
    const send = (type: string, body: string | Buffer) => response.writeHead(200, { 'content-type': type }).end(body)
    switch (path) {
      case '/gzip-bomb': return bomb(path, createGzip({ level: 1 }), 'gzip', response)
      case '/br-bomb': return bomb(path, createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }), 'br', response)
      case '/deflate-bomb': return bomb(path, createDeflate({ level: 1 }), 'deflate', response)
      case '/gzip-gzip':
        return response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' }).end(gzipSync(gzipSync('twice')))
      case '/cookies': {
        const headers: string[] = []
        for (let i = 0; i < 5000; i++)
          headers.push('set-cookie', `c${i}=v`)
        return response.writeHead(200, headers).end('ok')
      }
      case '/big-header': return response.writeHead(200, { 'content-type': 'text/plain', 'x-big': 'a'.repeat(MiB) }).end('ok')
      case '/utf16-odd': return send('text/html; charset=utf-16', Buffer.from([0x3C, 0, 0x62, 0, 0x3E, 0, 0x68, 0, 0x69]))
      case '/unknown-charset': return send('text/plain; charset=x-klingon', 'hello')
      case '/utf16-bom-says-utf8': return send('text/plain; charset=utf-8', Buffer.concat([Buffer.from([0xFF, 0xFE]), Buffer.from('hello', 'utf16le')]))
      case '/utf8-bom-says-utf16': return send('text/plain; charset=utf-16', Buffer.concat([Buffer.from([0xEF, 0xBB, 0xBF]), Buffer.from('hello')]))
      case '/binary-as-html': return send('text/html', Buffer.from([0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 0x0D, 1, 2, 3, 0xFF, 0xD8]))
      case '/binary-as-text': return send('text/plain; charset=utf-8', Buffer.from(Array.from({ length: 4096 }, (_, i) => 1 + (i % 8))))
      case '/deep-json': return send('application/json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)
      default: return response.writeHead(404).end()
    }
  })
  // A raw socket server, for answers node:http would never write.
  raw = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', (data) => {
      const path = data.toString('latin1').split(' ')[1]
      if (path === '/never')
        return
      if (path === '/half-headers')
        return socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n')
      if (path === '/negative-length')
        return socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: -5\r\n\r\nhello')
      if (path === '/garbage-length')
        return socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: lots\r\n\r\nhello')
      if (path === '/overflow-length')
        return socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 99999999999999999999999\r\n\r\nhello')
      if (path === '/claims-10-gb') {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 10737418240\r\n\r\n')
        const pump = () => {
          while (!socket.destroyed && socket.write(ZEROS));
        }
        socket.on('drain', pump)
        pump()
      }
    })
  })
  await new Promise<void>(resolve => raw.listen(0, '127.0.0.1', resolve))
  rawPort = (raw.address() as AddressInfo).port
})

afterAll(async () => {
  sockets.forEach(socket => socket.destroy())
  raw.close()
  await server.close()
})

const tool = createFetchUrlTool({ allowLoopbackForTests: true, maxResponseBytes: MiB, timeoutMs: 10_000 })
const get = (path: string, fetchTool = tool) => callTool(fetchTool, { url: server.url(path) }, bareToolContext())
const getRaw = (path: string, fetchTool = tool) => callTool(fetchTool, { url: `http://127.0.0.1:${rawPort}${path}` }, bareToolContext())

describe('fetch_url: compression bombs', () => {
  it.each(['/gzip-bomb', '/br-bomb', '/deflate-bomb'])('stops decoding an endless %s at the byte cap and says so', async (path) => {
    const output = await get(path)
    expect(output).toContain(`[Truncated: the response was larger than ${MiB} bytes; only the first ${MiB} bytes were read.]`)
    // The server writes only as fast as the client reads: it never got far past the cap before the client hung up.
    expect(bombMiB.get(path)).toBeLessThan(256)
  })

  it('refuses stacked encodings with a clear error', async () => {
    await expect(get('/gzip-gzip')).rejects.toThrow('unsupported content-encoding "gzip, gzip"')
  })
})

describe('fetch_url: servers that stall or break framing', () => {
  const quick = createFetchUrlTool({ allowLoopbackForTests: true, timeoutMs: 200 })

  it('times out a server that accepts and never answers, and one whose headers never finish', async () => {
    await expect(getRaw('/never', quick)).rejects.toThrow(/timed out after 200 ms/)
    await expect(getRaw('/half-headers', quick)).rejects.toThrow(/timed out after 200 ms/)
  })

  it('aborts a request whose headers never finish', async () => {
    const controller = new AbortController()
    const pending = callTool(tool, { url: `http://127.0.0.1:${rawPort}/half-headers` }, bareToolContext({ signal: controller.signal }))
    setTimeout(() => controller.abort(), 50)
    await expect(pending).rejects.toThrow(/was aborted/)
  })

  it('fails on oversized headers instead of buffering them, naming the URL', async () => {
    await expect(get('/cookies')).rejects.toThrow(/^fetch of http:\/\/127\.0\.0\.1:\d+\/cookies failed: .*Header overflow/)
    await expect(get('/big-header')).rejects.toThrow(/^fetch of http:\/\/127\.0\.0\.1:\d+\/big-header failed: .*Header overflow/)
  })

  it('fails on a negative, garbage or overflowing content-length, naming the URL', async () => {
    await expect(getRaw('/negative-length')).rejects.toThrow(/^fetch of http:\/\/127\.0\.0\.1:\d+\/negative-length failed: .*Content-Length/)
    await expect(getRaw('/garbage-length')).rejects.toThrow(/Content-Length/)
    await expect(getRaw('/overflow-length')).rejects.toThrow(/Content-Length/)
  })

  it('reads a body that claims 10 GB only up to the byte cap', async () => {
    expect(await getRaw('/claims-10-gb')).toContain(`only the first ${MiB} bytes were read`)
  })
})

describe('fetch_url: charsets and binary', () => {
  it('decodes UTF-16 with an odd byte count and falls back to UTF-8 for an unknown charset', async () => {
    expect(await get('/utf16-odd')).toMatch(/\n\nh\uFFFD$/)
    expect(await get('/unknown-charset')).toMatch(/\n\nhello$/)
  })

  it('lets a byte order mark overrule the declared charset, as browsers do', async () => {
    expect(await get('/utf16-bom-says-utf8')).toMatch(/\n\nhello$/)
    expect(await get('/utf8-bom-says-utf16')).toMatch(/\n\nhello$/)
  })

  it('refuses binary content served as text: a NUL, or mostly control characters', async () => {
    await expect(get('/binary-as-html')).rejects.toThrow(/binary content labelled text\/html/)
    await expect(get('/binary-as-text')).rejects.toThrow(/binary content labelled text\/plain/)
  })

  it('returns deeply nested JSON as it came, without parsing it', async () => {
    expect(await get('/deep-json')).toContain(`Content-Type: application/json\n\n${'['.repeat(1000)}`)
  })
})
