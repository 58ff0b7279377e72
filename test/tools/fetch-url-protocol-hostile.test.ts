/**
 * fetch_url against answers that break the HTTP exchange itself or carry
 * sizes nothing else caps: a 101 nobody asked for, bodies shorter than their
 * framing, a `<title>` of megabytes, and URLs of megabytes from the model.
 * All on 127.0.0.1; nothing asserts on time (the test timeout is the hang guard).
 */
import type { RawHttpServer } from '../support/raw-http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchUrlTool } from '../../src/tools/fetch-url'
import { bareToolContext, callTool } from '../support/local-http'
import { startRawHttpServer } from '../support/raw-http'

const TITLE = 'T'.repeat(3_000_000)

let raw: RawHttpServer
let port = 0

function answer(path: string): string | undefined {
  switch (path) {
    case '/switch': return 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\nhello'
    case '/short-body': return 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\nshort'
    case '/bad-chunk': return 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n'
    case '/long-title': {
      const body = `<html><head><title>${TITLE}</title></head><body><p>body text</p></body></html>`
      return `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\n\r\n${body}`
    }
  }
  return undefined
}

beforeAll(async () => {
  raw = await startRawHttpServer(answer)
  port = raw.port
})

afterAll(() => raw.close())

const tool = createFetchUrlTool({ allowLoopbackForTests: true })
const get = (path: string, signal?: AbortSignal) => callTool(tool, { url: `http://127.0.0.1:${port}${path}` }, bareToolContext({ signal }))

describe('fetch_url: a broken HTTP exchange', () => {
  it('fails at once on a 101 Switching Protocols it never asked for, instead of hanging past timeout and abort', async () => {
    // Before, node dropped the socket and the request promise never settled: neither the 30 s deadline nor an abort ended it.
    await expect(get('/switch')).rejects.toThrow(/^fetch of http:\/\/127\.0\.0\.1:\d+\/switch failed: the connection closed before a response came/)
  })

  it('says the body was cut short when the connection closes before content-length or the last chunk', async () => {
    await expect(get('/short-body')).rejects.toThrow(/failed: the connection closed before the body was complete \(5 bytes read\)/)
    await expect(get('/bad-chunk')).rejects.toThrow(/failed: the connection closed before the body was complete/)
  })
})

describe('fetch_url: sizes from the page and from the model', () => {
  it('cuts a <title> of megabytes in the header, as maxOutputChars cuts the body', async () => {
    const output = await get('/long-title')
    const title = output.split('\n').find(line => line.startsWith('Title: '))!
    expect(title).toBe(`Title: ${'T'.repeat(299)}…`)
    expect(output).toContain('body text')
    expect(output.length).toBeLessThan(1000)
  })

  it('refuses a URL of a megabyte before resolving or sending it, quoting only its start', async () => {
    const resolved: string[] = []
    const guarded = createFetchUrlTool({ resolveHost: async (host) => {
      resolved.push(host)
      return [{ address: '93.184.216.34', family: 4 }]
    } })
    const url = `http://example.com/${'a'.repeat(1_000_000)}`
    const error = await callTool(guarded, { url }, bareToolContext()).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).name).toBe('FetchRefusedError')
    expect((error as Error).message).toMatch(/^the URL is 1000019 characters long; fetch_url takes URLs of at most 16384/)
    expect((error as Error).message.length).toBeLessThan(300)
    expect(resolved).toEqual([])
  })

  it('refuses a host name longer than DNS allows, or with a label over 63 characters, without resolving it', async () => {
    const resolved: string[] = []
    const guarded = createFetchUrlTool({ resolveHost: async (host) => {
      resolved.push(host)
      return [{ address: '93.184.216.34', family: 4 }]
    } })
    const call = (url: string) => callTool(guarded, { url }, bareToolContext())
    await expect(call(`http://${'a.'.repeat(127)}com/`)).rejects.toThrow(/is not a valid host name \(257 characters, more than 253\)/)
    await expect(call(`http://${'a'.repeat(64)}.com/`)).rejects.toThrow(/is not a valid host name \(a label is longer than 63 characters\)/)
    expect(resolved).toEqual([])
  })
})

describe('fetch_url: a host resolver that never answers', () => {
  it('is bounded by timeoutMs even when it ignores its signal', async () => {
    const stuck = createFetchUrlTool({ timeoutMs: 50, resolveHost: () => new Promise(() => {}) })
    await expect(callTool(stuck, { url: 'http://stuck.example/' }, bareToolContext())).rejects.toThrow('fetch of http://stuck.example/ timed out after 50 ms')
  })
})

describe('fetch_url: limits that would switch themselves off', () => {
  it('throws a RangeError naming the option for NaN, a negative or a fractional cap, instead of reading without limit', () => {
    expect(() => createFetchUrlTool({ maxResponseBytes: Number.NaN })).toThrow(new RangeError('fetch_url: maxResponseBytes must be an integer from 1 up (got NaN)'))
    expect(() => createFetchUrlTool({ maxOutputChars: -1 })).toThrow(/maxOutputChars must be an integer from 1 up \(got -1\)/)
    expect(() => createFetchUrlTool({ maxRedirects: 2.5 })).toThrow(/maxRedirects must be an integer from 0 up/)
    expect(() => createFetchUrlTool({ timeoutMs: Number.NaN })).toThrow(/timeoutMs must be a number from 1 up/)
    expect(() => createFetchUrlTool({ maxRedirects: 0, timeoutMs: Number.POSITIVE_INFINITY })).not.toThrow()
  })
})
