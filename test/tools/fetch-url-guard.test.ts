import type { ToolResultBlock } from '../../src/core/content'
import type { ResolvedAddress } from '../../src/tools/fetch-url'
import { describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { blockedAddress, createFetchUrlTool, hostAllowed, normalizeAllowHosts, parseIpLiteral, parseIPv4, webToolBehaviorOf } from '../../src/tools/fetch-url'
import { pinnedLookup } from '../../src/tools/fetch-url/target-guard'
import { bareToolContext, callTool } from '../support/local-http'

/** A resolver that fails the test if the tool ever asks DNS: literal hosts must be refused without a lookup. */
const noDns = vi.fn(async (): Promise<readonly ResolvedAddress[]> => {
  throw new Error('DNS must not be consulted for this URL')
})

const guarded = createFetchUrlTool({ resolveHost: noDns })
const fetchWith = (url: string) => callTool(guarded, { url })

describe('fetch_url SSRF guard: literal hosts in every spelling', () => {
  it.each([
    ['http://127.0.0.1/', /loopback/],
    ['http://127.255.255.254:8080/x', /loopback/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
    ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback/],
    ['http://0x7f.0.0.1/', /127\.0\.0\.1 is a loopback/],
    ['http://0x7f000001/', /127\.0\.0\.1 is a loopback/],
    ['http://127.1/', /127\.0\.0\.1 is a loopback/],
    ['http://[::1]/', /loopback/],
    ['http://[0:0:0:0:0:0:0:1]/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /IPv4-mapped form of 127\.0\.0\.1 is a loopback/],
    ['http://[::ffff:7f00:1]/', /IPv4-mapped form of 127\.0\.0\.1/],
    ['http://[::ffff:169.254.169.254]/', /metadata/],
    ['http://10.0.0.1/', /private/],
    ['http://172.16.5.4/', /private/],
    ['http://172.31.255.255/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://[fc00::1]/', /unique local/],
    ['http://[fd12:3456::1]/', /unique local/],
    ['http://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['http://169.254.1.1/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://100.127.255.255/', /carrier-grade NAT/],
    ['http://224.0.0.1/', /multicast/],
    ['http://239.255.255.250/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://[ff02::1]/', /multicast/],
    ['http://[64:ff9b::7f00:1]/', /NAT64 form of 127\.0\.0\.1/],
    ['http://[2002:a00:1::]/', /6to4 form of 10\.0\.0\.1/],
    ['http://localhost:3000/', /loopback host name/],
    ['http://api.localhost./', /loopback host name/],
  ])('refuses %s', async (url, reason) => {
    await expect(fetchWith(url)).rejects.toThrow(reason)
    expect(noDns).not.toHaveBeenCalled()
  })

  it.each(['file:///etc/passwd', 'ftp://example.com/file', 'gopher://example.com/', 'data:text/plain,hi', 'javascript:alert(1)'])('refuses the non-http scheme of %s', async (url) => {
    await expect(fetchWith(url)).rejects.toThrow(/only http and https/)
  })

  it('returns the refusal to the model as an error result in a run', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'fetch_url', input: { url: 'http://169.254.169.254/latest/meta-data/' } }] }, { text: 'ok' }])
    await createAgent({ provider, tools: { fetch_url: guarded } }).run({ prompt: 'read the metadata' })
    const [result] = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    expect(result).toMatchObject({ isError: true, output: 'Error: refused to fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254 is the cloud metadata address' })
  })

  it('refuses input that is not an absolute URL', async () => {
    await expect(fetchWith('/relative/path')).rejects.toThrow(/not a valid absolute URL/)
  })
})

describe('fetch_url SSRF guard: host names resolving to blocked addresses', () => {
  const resolvingTo = (...addresses: string[]) => createFetchUrlTool({
    resolveHost: async () => addresses.map(address => ({ address, family: address.includes(':') ? 6 as const : 4 as const })),
  })

  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
    ['10.1.2.3', /private/],
    ['172.20.0.1', /private/],
    ['192.168.0.10', /private/],
    ['fd00:ec2::254', /unique local/],
    ['169.254.169.254', /cloud metadata/],
    ['fe80::abcd', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['100.100.100.200', /carrier-grade NAT/],
    ['224.0.0.251', /multicast/],
    ['255.255.255.255', /broadcast/],
  ])('refuses a host resolving to %s', async (address, reason) => {
    await expect(callTool(resolvingTo(address), { url: 'http://innocent.example/' })).rejects.toThrow(reason)
  })

  it('refuses the host when any one of its addresses is blocked', async () => {
    await expect(callTool(resolvingTo('93.184.216.34', '10.0.0.7'), { url: 'https://mixed.example/' }))
      .rejects
      .toThrow(/"mixed\.example" resolves to a blocked address: 10\.0\.0\.7 is a private address/)
  })

  it('refuses a resolver answer that is not an IP address', async () => {
    await expect(callTool(resolvingTo('not-an-ip'), { url: 'https://odd.example/' })).rejects.toThrow(/not an IP address/)
  })
})

describe('address parsing and ranges', () => {
  it('reads every legacy IPv4 spelling the way inet_aton does', () => {
    expect(parseIPv4('2130706433')).toBe(0x7F000001)
    expect(parseIPv4('0177.0.0.1')).toBe(0x7F000001)
    expect(parseIPv4('0x7f.0.0.1')).toBe(0x7F000001)
    expect(parseIPv4('0X7F.1')).toBe(0x7F000001)
    expect(parseIPv4('127.1')).toBe(0x7F000001)
    expect(parseIPv4('127.0.1')).toBe(0x7F000001)
    expect(parseIPv4('127.0.0.1.')).toBe(0x7F000001)
    expect(parseIPv4('256.0.0.1')).toBeUndefined()
    expect(parseIPv4('1.2.3.4.5')).toBeUndefined()
    expect(parseIPv4('08.0.0.1')).toBeUndefined()
    expect(parseIPv4('example.com')).toBeUndefined()
  })

  it('blocks raw literals the URL parser would have normalised', () => {
    for (const raw of ['0177.0.0.1', '0x7f.1', '2130706433', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '017700000001'])
      expect(blockedAddress(parseIpLiteral(raw)!)?.kind, raw).toBe('loopback')
  })

  it('refuses zone ids rather than treating them as host names', () => {
    expect(parseIpLiteral('fe80::1%eth0')).toBeUndefined()
  })

  it('leaves public addresses just outside each range alone', () => {
    for (const raw of ['8.8.8.8', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '11.0.0.1', '223.255.255.255', '2606:4700::1111', '::ffff:8.8.8.8', '2002:808:808::'])
      expect(blockedAddress(parseIpLiteral(raw)!), raw).toBeUndefined()
  })
})

describe('egress allowlist', () => {
  it('matches host suffixes case-insensitively, ignoring ports and leading dots', () => {
    const list = normalizeAllowHosts(['Example.COM', '.docs.test:8443', 'api.other.org.'])
    expect(list).toEqual(['example.com', 'docs.test', 'api.other.org'])
    expect(hostAllowed('example.com', list)).toBe(true)
    expect(hostAllowed('DOCS.EXAMPLE.com', list)).toBe(true)
    expect(hostAllowed('notexample.com', list)).toBe(false)
    expect(hostAllowed('example.com.evil.net', list)).toBe(false)
    expect(hostAllowed('a.docs.test', list)).toBe(true)
    expect(hostAllowed('other.org', list)).toBe(false)
  })

  it('treats an empty list, or one of blanks, as no allowlist', () => {
    expect(normalizeAllowHosts([])).toBeUndefined()
    expect(normalizeAllowHosts(['', '  '])).toBeUndefined()
    expect(hostAllowed('anything.net', normalizeAllowHosts([]))).toBe(true)
  })

  it('canonicalises IPv6 entries so they match URL host names', () => {
    const list = normalizeAllowHosts(['[2606:4700:0::1111]:443', '2001:4860::8888'])
    expect(hostAllowed(new URL('http://[2606:4700::1111]/').hostname, list)).toBe(true)
    expect(hostAllowed(new URL('http://[2001:4860::8888]/').hostname, list)).toBe(true)
  })

  it('reads the knobs from behavior, ignoring values of the wrong type', () => {
    expect(webToolBehaviorOf({ fetchUrlAllowHosts: ['a.test'], fetchUrlCacheTtlMs: 5000 })).toEqual({ allowHosts: ['a.test'], cacheTtlMs: 5000 })
    expect(webToolBehaviorOf({ fetchUrlAllowHosts: 'a.test', fetchUrlCacheTtlMs: 0 })).toEqual({ allowHosts: undefined, cacheTtlMs: undefined })
  })

  it('refuses a URL outside the allowlist before resolving it', async () => {
    const resolveHost = vi.fn(async () => [{ address: '93.184.216.34', family: 4 as const }])
    const ctx = bareToolContext({ behavior: { fetchUrlAllowHosts: ['example.com'] } })
    await expect(callTool(createFetchUrlTool({ resolveHost }), { url: 'https://notexample.com/' }, ctx)).rejects.toThrow(/not covered by fetchUrlAllowHosts/)
    expect(resolveHost).not.toHaveBeenCalled()
  })
})

describe('pinned lookup', () => {
  const addresses: ResolvedAddress[] = [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800::1', family: 6 }]
  const ask = (host: string, options: Parameters<ReturnType<typeof pinnedLookup>>[1]) => new Promise<{ error: Error | null, address: unknown, family?: number }>((resolve) => {
    pinnedLookup('site.example', addresses)(host, options, (error, address, family) => resolve({ error, address, family }))
  })

  it('answers only with the approved addresses, for every family request', async () => {
    expect(await ask('site.example', { all: true })).toMatchObject({ error: null, address: [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800::1', family: 6 }] })
    expect(await ask('site.example', { family: 6 })).toMatchObject({ error: null, address: '2606:2800::1', family: 6 })
    expect(await ask('site.example', {})).toMatchObject({ error: null, address: '93.184.216.34', family: 4 })
  })

  it('refuses any other host name', async () => {
    const { error } = await ask('elsewhere.example', { all: true })
    expect(error?.message).toMatch(/no approved address/)
  })
})
