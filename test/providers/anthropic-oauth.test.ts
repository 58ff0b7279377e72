import type { OAuthRefreshHookContext } from '../../src/types'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { LocalServer } from '../support/local-http'
import { inspect } from 'node:util'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { ClassifiedError, OAuthRefreshError } from '../../src/errors'
import { anthropic, MAX_TOKEN_RESPONSE_BYTES, OAUTH_BETA } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startLocalServer } from '../support/local-http'
import { recordCallbacks, rejectionOf, streamOptions } from './anthropic-fixtures'

// The body the Messages API sends for an expired OAuth access token.
const EXPIRED_TOKEN_401 = {
  type: 'error',
  error: { type: 'authentication_error', message: 'OAuth token has expired. Please obtain a new token or refresh your existing token.' },
  request_id: 'req_011CVxExpiredTokenExample',
}

const OLD_ACCESS = 'sk-ant-oat01-OLD-ACCESS-secret'
const OLD_REFRESH = 'sk-ant-ort01-OLD-REFRESH-secret'
const NEW_ACCESS = 'sk-ant-oat01-NEW-ACCESS-secret'
const NEW_REFRESH = 'sk-ant-ort01-NEW-REFRESH-secret'
const SECRETS = [OLD_ACCESS, OLD_REFRESH, NEW_ACCESS, NEW_REFRESH]

let fake: FakeAnthropic | undefined
let tokens: LocalServer | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
  await fake?.close()
  await tokens?.close()
  fake = undefined
  tokens = undefined
})

/** A token endpoint answering each refresh with `answer` (default: a rotated pair valid for an hour). */
async function tokenEndpoint(answer: (request: { body: string }) => { status: number, body: string, headers?: Record<string, string> } | 'hang' = () => ({
  status: 200,
  body: JSON.stringify({ token_type: 'Bearer', access_token: NEW_ACCESS, refresh_token: NEW_REFRESH, expires_in: 3600 }),
})): Promise<LocalServer> {
  return startLocalServer((request, response) => {
    const reply = answer(request)
    if (reply === 'hang')
      return
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
    response.end(reply.body)
  })
}

function oauthProvider(options: { expires?: number } = {}) {
  return anthropic({
    baseURL: fake!.url,
    oauth: { access: OLD_ACCESS, refresh: OLD_REFRESH, expires: options.expires ?? Date.now() + 3_600_000, tokenUrl: tokens!.url('/v1/oauth/token') },
  })
}

function noSecretsIn(value: unknown): void {
  const text = typeof value === 'string' ? value : inspect(value, { depth: 12, showHidden: true })
  for (const secret of SECRETS) expect(text).not.toContain(secret)
}

describe('anthropic({ oauth })', () => {
  it('sends the access token as a bearer through the SDK client, with the OAuth beta and no API key', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'env-key-must-not-be-sent')
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint()
    fake.enqueue({ type: 'turn', turn: { text: 'hi' } })
    await oauthProvider().stream(streamOptions(), recordCallbacks().callbacks)
    const sent = fake.requests[0].headers
    expect(sent.authorization).toBe(`Bearer ${OLD_ACCESS}`)
    expect(sent['x-api-key']).toBeUndefined()
    expect(sent['anthropic-beta'].split(',')).toContain(OAUTH_BETA)
    expect(tokens.requests).toHaveLength(0)
  })

  it('refreshes before the request when the token is about to expire, and reports it on oauth:refresh', async () => {
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint()
    fake.enqueue({ type: 'turn', turn: { text: 'after refresh' } })
    const reports: OAuthRefreshHookContext[] = []
    const expires = Date.now() + 5_000
    const agent = createAgent({
      provider: anthropic({ baseURL: fake.url, oauth: { access: OLD_ACCESS, refresh: OLD_REFRESH, expires, tokenUrl: tokens.url('/v1/oauth/token'), clientId: 'my-client' } }),
      hooks: { 'oauth:refresh': (ctx) => {
        reports.push(ctx)
      } },
    })
    const stats = await agent.run({ prompt: 'hello' })
    await agent.destroy()
    expect(stats.text).toBe('after refresh')
    expect(tokens.requests).toHaveLength(1)
    expect(tokens.requests[0].method).toBe('POST')
    expect(JSON.parse(tokens.requests[0].body)).toEqual({ grant_type: 'refresh_token', refresh_token: OLD_REFRESH, client_id: 'my-client' })
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${NEW_ACCESS}`)
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({
      provider: 'anthropic',
      providerId: 'anthropic',
      source: 'params',
      previousCredentials: { access: OLD_ACCESS, refresh: OLD_REFRESH, expires },
      credentials: { access: NEW_ACCESS, refresh: NEW_REFRESH },
    })
    expect(reports[0].credentials.expires).toBeGreaterThan(Date.now() + 3_500_000)
  })

  it('keeps the refresh token when the endpoint does not rotate it', async () => {
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint(() => ({ status: 200, body: JSON.stringify({ access_token: NEW_ACCESS, expires_in: 60 }) }))
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const reports: OAuthRefreshHookContext[] = []
    await oauthProvider({ expires: 0 }).stream(streamOptions(), { ...recordCallbacks().callbacks, onOAuthRefresh: (ctx) => {
      reports.push(ctx)
    } })
    expect(reports[0].credentials.refresh).toBe(OLD_REFRESH)
  })

  it('on a 401 for an expired token: one refresh, one retry with the new token', async () => {
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint()
    fake.enqueue({ type: 'error', status: 401, body: EXPIRED_TOKEN_401 }, { type: 'turn', turn: { text: 'retried' } })
    const result = await oauthProvider().stream(streamOptions(), recordCallbacks().callbacks)
    expect(result.content).toEqual([{ type: 'text', text: 'retried' }])
    expect(fake.requests.map(request => request.headers.authorization)).toEqual([`Bearer ${OLD_ACCESS}`, `Bearer ${NEW_ACCESS}`])
    expect(tokens.requests).toHaveLength(1)
  })

  it('retries a 401 only once: a second one is an auth error that names no token', async () => {
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint()
    fake.enqueue({ type: 'error', status: 401, body: EXPIRED_TOKEN_401 }, { type: 'error', status: 401, body: EXPIRED_TOKEN_401 })
    const error = await rejectionOf(oauthProvider().stream(streamOptions(), recordCallbacks().callbacks))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error.kind).toBe('auth')
    expect(fake.requests).toHaveLength(2)
    expect(tokens.requests).toHaveLength(1)
    noSecretsIn(error)
  })

  it('an API-key provider does not refresh or retry on a 401', async () => {
    fake = await startFakeAnthropic()
    fake.enqueue({ type: 'error', status: 401, body: EXPIRED_TOKEN_401 })
    const error = await rejectionOf(anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(streamOptions(), recordCallbacks().callbacks))
    expect(error.kind).toBe('auth')
    expect(fake.requests).toHaveLength(1)
  })

  it('shares one refresh between requests that need it at the same time', async () => {
    fake = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
    tokens = await tokenEndpoint()
    const provider = oauthProvider({ expires: 0 })
    await Promise.all([1, 2, 3].map(() => provider.stream(streamOptions(), recordCallbacks().callbacks)))
    expect(tokens.requests).toHaveLength(1)
    expect(fake.requests.every(request => request.headers.authorization === `Bearer ${NEW_ACCESS}`)).toBe(true)
  })

  it('sends cacheTtl \'1h\' as \'5m\' on the OAuth path, and as \'1h\' with an API key', async () => {
    fake = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
    tokens = await tokenEndpoint()
    const options = streamOptions({ cache: true, cacheTtl: '1h' })
    await oauthProvider().stream(options, recordCallbacks().callbacks)
    await anthropic({ baseURL: fake.url, apiKey: 'test-key' }).stream(options, recordCallbacks().callbacks)
    const [viaOAuth, viaKey] = fake.requests
    expect(JSON.stringify(viaOAuth.body)).not.toContain('"ttl"')
    expect(viaOAuth.headers['anthropic-beta']).not.toContain('extended-cache-ttl')
    expect(JSON.stringify(viaOAuth.body)).toContain('"cache_control":{"type":"ephemeral"}')
    expect(JSON.stringify(viaKey.body)).toContain('"ttl":"1h"')
    expect(viaKey.headers['anthropic-beta']).toContain('extended-cache-ttl')
  })

  it('refuses credentials that cannot work when the provider is created', () => {
    expect(() => anthropic({ oauth: { access: '', refresh: 'r', expires: 0 } })).toThrow(TypeError)
    expect(() => anthropic({ oauth: { access: 'a', refresh: 'r', expires: 0, tokenUrl: 'file:///etc/passwd' } })).toThrow(TypeError)
  })

  describe('a hostile or failing token endpoint gives a typed error, never a token', () => {
    const cases: [string, () => { status: number, body: string, headers?: Record<string, string> }, Partial<OAuthRefreshError>][] = [
      ['a refusal that echoes the refresh token', () => ({ status: 400, body: JSON.stringify({ error: 'invalid_grant', error_description: `refresh token ${OLD_REFRESH} is revoked` }) }), { reason: 'http', status: 400, code: 'invalid_grant' }],
      ['a body that is not JSON', () => ({ status: 200, body: `<html>${OLD_REFRESH}</html>` }), { reason: 'malformed' }],
      ['no access_token', () => ({ status: 200, body: JSON.stringify({ refresh_token: NEW_REFRESH, expires_in: 3600 }) }), { reason: 'malformed' }],
      ['an access_token that is not a string', () => ({ status: 200, body: JSON.stringify({ access_token: { nested: NEW_ACCESS }, expires_in: 3600 }) }), { reason: 'malformed' }],
      ['a negative expires_in', () => ({ status: 200, body: JSON.stringify({ access_token: NEW_ACCESS, expires_in: -5 }) }), { reason: 'malformed' }],
      ['a huge answer', () => ({ status: 200, body: JSON.stringify({ access_token: 'x'.repeat(MAX_TOKEN_RESPONSE_BYTES * 4), expires_in: 3600 }) }), { reason: 'too-large' }],
      ['a huge answer without a length', () => ({ status: 200, body: `{"access_token":"${'y'.repeat(MAX_TOKEN_RESPONSE_BYTES * 2)}"}`, headers: { 'transfer-encoding': 'chunked' } }), { reason: 'too-large' }],
      ['a server error', () => ({ status: 503, body: 'down' }), { reason: 'http', status: 503 }],
    ]
    it.each(cases)('%s', async (_name, answer, expected) => {
      fake = await startFakeAnthropic()
      tokens = await tokenEndpoint(answer)
      const error = await rejectionOf(oauthProvider({ expires: 0 }).stream(streamOptions(), recordCallbacks().callbacks))
      expect(error).toBeInstanceOf(ClassifiedError)
      expect(error.cause).toBeInstanceOf(OAuthRefreshError)
      expect(error.cause).toMatchObject(expected)
      expect(error.kind).toBe(expected.status === 503 ? 'server' : 'auth')
      expect(fake.requests).toHaveLength(0)
      noSecretsIn(error)
    })

    it('any answer the endpoint gives is either a valid token or a typed refusal', async () => {
      fake = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'ok' } }) })
      let next = ''
      tokens = await tokenEndpoint(() => ({ status: 200, body: next }))
      await fc.assert(fc.asyncProperty(fc.oneof(fc.json(), fc.string(), fc.record({ access_token: fc.anything(), expires_in: fc.anything(), refresh_token: fc.option(fc.anything(), { nil: undefined }) }).map(value => JSON.stringify(value) ?? '')), async (body) => {
        next = body
        try {
          await oauthProvider({ expires: 0 }).stream(streamOptions(), recordCallbacks().callbacks)
        }
        catch (error) {
          expect(error).toBeInstanceOf(ClassifiedError)
          expect((error as ClassifiedError).cause).toBeInstanceOf(OAuthRefreshError)
        }
      }), { numRuns: 60 })
    })
  })

  it('a hung token endpoint is abandoned as soon as the request is aborted', async () => {
    fake = await startFakeAnthropic()
    tokens = await tokenEndpoint(() => 'hang')
    const controller = new AbortController()
    const pending = rejectionOf(oauthProvider({ expires: 0 }).stream(streamOptions({ signal: controller.signal }), recordCallbacks().callbacks))
    while (tokens.requests.length === 0)
      await new Promise(resolve => setTimeout(resolve, 5))
    controller.abort()
    const error = await pending
    expect(error.kind).toBe('aborted')
    expect(fake.requests).toHaveLength(0)
  })

  it('no token reaches debug output or any hook but oauth:refresh, through refreshes, retries and failures', async () => {
    vi.stubEnv('ZIDANE_DEBUG', '1')
    const logged: unknown[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args)
    })
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      logged.push(args)
    })
    fake = await startFakeAnthropic()
    let refreshes = 0
    tokens = await tokenEndpoint(() => ++refreshes === 1
      ? { status: 200, body: JSON.stringify({ access_token: NEW_ACCESS, refresh_token: NEW_REFRESH, expires_in: 3600 }) }
      : { status: 400, body: JSON.stringify({ error: 'invalid_grant', error_description: NEW_REFRESH }) })
    fake.enqueue(
      { type: 'error', status: 401, body: EXPIRED_TOKEN_401 },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'echo', input: {} }] } },
      { type: 'error', status: 401, body: EXPIRED_TOKEN_401 },
    )
    const payloads: [string, unknown][] = []
    const hooks = Object.fromEntries(['agent:start', 'agent:error', 'agent:done', 'stream:retry', 'stream:end', 'turn:after', 'tool:before', 'tool:after', 'usage'].map(name => [name, (ctx: unknown) => {
      payloads.push([name, ctx])
    }]))
    const refreshed: OAuthRefreshHookContext[] = []
    const agent = createAgent({
      provider: oauthProvider(),
      tools: { echo: { spec: { name: 'echo', description: 'echo', inputSchema: { type: 'object' } }, execute: () => 'echoed' } },
      hooks: { ...hooks, 'oauth:refresh': (ctx) => {
        refreshed.push(ctx)
      } },
      behavior: { retry: { maxAttempts: 1 } },
    })
    const error = await rejectionOf(agent.run({ prompt: 'go' }))
    await agent.destroy()
    expect(refreshed).toHaveLength(1)
    expect(refreshes).toBe(2)
    expect(payloads.some(([name]) => name === 'agent:error')).toBe(true)
    noSecretsIn(error)
    noSecretsIn(payloads)
    noSecretsIn(logged)
  })
})
