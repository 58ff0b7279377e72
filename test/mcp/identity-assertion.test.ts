import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { McpIdentityAssertionError } from '../../src/errors'
import { ID_JAG_TOKEN_TYPE, MAX_TOKEN_EXCHANGE_RESPONSE_BYTES, requestIdJag } from '../../src/mcp/oauth/identity-assertion'

const base = {
  server: 'calc',
  tokenEndpoint: 'https://idp.example/oauth2/token',
  clientId: 'agent-at-idp',
  idToken: 'id.token.value',
  audience: 'https://auth.example',
  resource: 'https://mcp.example/mcp',
  timeoutMs: 5_000,
}

/** A fetch that answers every request with `status` and `body`. */
function answering(status: number, body: string) {
  return async () => new Response(body, { status, headers: { 'content-type': 'application/json' } })
}

describe('requestIdJag: what any IdP answer gets', () => {
  it('returns the ID-JAG of a well-formed answer, and a typed, short error for anything else', async () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.constant(ID_JAG_TOKEN_TYPE), fc.string({ minLength: 1000, maxLength: 5000 }))
    const body = fc.oneof(
      fc.record({ access_token: value, issued_token_type: value, token_type: value, error: value, error_description: value, scope: value }, { requiredKeys: [] }).map(o => JSON.stringify(o)),
      fc.json(),
      fc.string(),
    )
    // 204, 205 and 304 carry no body, so a `Response` with one cannot be made for them.
    const status = fc.oneof(fc.constant(200), fc.integer({ min: 200, max: 599 }).filter(code => code !== 204 && code !== 205 && code !== 304))
    await fc.assert(fc.asyncProperty(status, body, async (code, text) => {
      const outcome = await requestIdJag({ ...base, fetch: answering(code, text) }).then(r => r, (error: unknown) => error)
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      }
      catch {}
      const o = parsed as Record<string, unknown> | undefined
      const good = code >= 200 && code < 300 && !!o && typeof o === 'object' && !Array.isArray(o)
        && o.issued_token_type === ID_JAG_TOKEN_TYPE && typeof o.access_token === 'string' && o.access_token !== ''
      if (good) {
        expect(outcome).toMatchObject({ assertion: o!.access_token })
        return
      }
      expect(outcome).toBeInstanceOf(McpIdentityAssertionError)
      const error = outcome as McpIdentityAssertionError
      expect(error.stage).toBe('identity-provider')
      expect(error.server).toBe('calc')
      // Whatever the IdP sends, the message stays short and on one line.
      expect(error.message.length).toBeLessThan(1000)
      expect(error.message).not.toContain('\n')
    }), { numRuns: 300 })
  })

  it('reads no further than the cap from an endless answer', async () => {
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024
        controller.enqueue(new Uint8Array(64 * 1024))
      },
    })
    const error = await requestIdJag({ ...base, fetch: async () => new Response(endless, { status: 200 }) }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpIdentityAssertionError)
    expect(pulled).toBeLessThan(MAX_TOKEN_EXCHANGE_RESPONSE_BYTES + 4 * 64 * 1024)
  })

  it('sends the token exchange the extension describes, the secret only when there is one', async () => {
    const sent: Array<{ url: string, init: RequestInit }> = []
    const ok = JSON.stringify({ access_token: 'jag', issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', scope: 'a b', expires_in: 300 })
    const capture = async (url: string, init: RequestInit) => {
      sent.push({ url, init })
      return new Response(ok, { status: 200 })
    }
    expect(await requestIdJag({ ...base, scope: 'a b', fetch: capture })).toEqual({ assertion: 'jag', scope: 'a b', expiresIn: 300 })
    await requestIdJag({ ...base, clientSecret: 's3cret', fetch: capture })
    const [first, second] = sent.map(s => Object.fromEntries(new URLSearchParams(String(s.init.body))))
    expect(first).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: base.audience,
      resource: base.resource,
      subject_token: base.idToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: base.clientId,
      scope: 'a b',
    })
    expect(second.client_secret).toBe('s3cret')
    expect(sent.every(s => s.init.redirect === 'error' && s.init.method === 'POST')).toBe(true)
  })
})
