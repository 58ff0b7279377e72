/**
 * The SSRF guard `fetch_url` runs on the initial URL and on every redirect
 * hop: scheme, egress allowlist, the host itself, then every address it
 * resolves to. The addresses it approves are the only ones the request may
 * connect to (`pinnedLookup`), so a DNS answer that changes between the check
 * and the connect (rebinding) cannot redirect the socket.
 */

import type { LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import type { BlockedAddress, IpLiteral } from './address'
import { lookup } from 'node:dns/promises'
import { untilAborted } from '../../core/until-aborted'
import { blockedAddress, formatIPv4, parseIpLiteral } from './address'
import { hostAllowed } from './settings'

const NOT_HOST_NAME_CHARACTER = /[^a-z\d.\-_]/
const MAX_HOST_NAME_CHARS = 253
const MAX_LABEL_CHARS = 63

/** One address a host name resolved to, as the SSRF guard checks it. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolve a host name to every address it has. Injected in tests; the default asks the system resolver. */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<readonly ResolvedAddress[]>

export interface TargetPolicy {
  allowHosts?: readonly string[]
  resolve: HostResolver
  /** Test-only: let loopback addresses through (every other blocked range still applies). */
  allowLoopback: boolean
}

/** A request the guard will not let out; the message says which rule refused it. */
export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError'
}

export const systemResolver: HostResolver = async (hostname, signal) => {
  const answers = await untilAborted(lookup(hostname, { all: true, verbatim: true }), signal)
  return answers.map(answer => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }))
}

/**
 * The checks that need no network: scheme, allowlist, and a literal or
 * reserved host. Run before the cache is consulted, so a cached page is never
 * served for a URL the current policy refuses.
 */
export function precheckTarget(url: URL, policy: TargetPolicy): IpLiteral | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchRefusedError(`only http and https URLs can be fetched (got "${url.protocol}")`)
  const host = url.hostname.toLowerCase()
  if (host === '')
    throw new FetchRefusedError('the URL has no host')
  if (!hostAllowed(host, policy.allowHosts))
    throw new FetchRefusedError(`host "${host}" is not covered by fetchUrlAllowHosts`)
  const literal = parseIpLiteral(host)
  if (literal) {
    refuseIfBlocked(literal, policy, reason => reason)
    return literal
  }
  if (NOT_HOST_NAME_CHARACTER.test(host))
    throw new FetchRefusedError(`"${host}" is not a valid host name`)
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  // DNS caps a name at 253 characters and a label at 63; a longer one can only fail, after a resolver round trip.
  if (name.length > MAX_HOST_NAME_CHARS || name.split('.').some(label => label.length > MAX_LABEL_CHARS))
    throw new FetchRefusedError(`"${name.length > 100 ? `${name.slice(0, 100)}…` : name}" is not a valid host name (${name.length > MAX_HOST_NAME_CHARS ? `${name.length} characters, more than ${MAX_HOST_NAME_CHARS}` : `a label is longer than ${MAX_LABEL_CHARS} characters`})`)
  if (name === 'localhost' || name.endsWith('.localhost'))
    throw new FetchRefusedError(`"${host}" is a loopback host name`)
  return undefined
}

/** Run every check, resolving the host, and return the addresses the connection may use. */
export async function checkTarget(url: URL, policy: TargetPolicy, signal: AbortSignal): Promise<readonly ResolvedAddress[]> {
  const literal = precheckTarget(url, policy)
  if (literal)
    return [literal.family === 4 ? { address: formatIPv4(literal.value), family: 4 } : { address: url.hostname.slice(1, -1), family: 6 }]
  // A resolver passed in by the host may ignore its signal; the fetch's deadline and the run's abort must hold all the same.
  const addresses = await untilAborted(policy.resolve(url.hostname, signal), signal)
  if (addresses.length === 0)
    throw new FetchRefusedError(`"${url.hostname}" did not resolve to any address`)
  for (const { address } of addresses) {
    const parsed = parseIpLiteral(address)
    if (!parsed)
      throw new FetchRefusedError(`"${url.hostname}" resolved to "${address}", which is not an IP address`)
    // One bad answer refuses the whole host: the connection could be made to any of them.
    refuseIfBlocked(parsed, policy, reason => `"${url.hostname}" resolves to a blocked address: ${reason}`)
  }
  return addresses
}

function refuseIfBlocked(ip: IpLiteral, policy: TargetPolicy, describe: (reason: string) => string): void {
  const blocked: BlockedAddress | undefined = blockedAddress(ip)
  if (!blocked || (blocked.kind === 'loopback' && policy.allowLoopback && isPlainLoopback(ip)))
    return
  throw new FetchRefusedError(describe(blocked.reason))
}

/** 127/8 or ::1 themselves; the hatch never extends to mapped or translated spellings. */
function isPlainLoopback(ip: IpLiteral): boolean {
  return ip.family === 4 || ip.groups.every((group, i) => group === (i === 7 ? 1 : 0))
}

/**
 * A `lookup` for `http.request` that answers only with the addresses the guard
 * approved for `hostname`. The socket layer calls it instead of DNS, so TLS
 * still sees the real host name (SNI and certificate checks are unchanged).
 */
export function pinnedLookup(hostname: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (requested, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
    const usable = family === 4 || family === 6 ? addresses.filter(a => a.family === family) : addresses
    if (requested !== hostname || usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no approved address for "${requested}"`)
      error.code = 'ENOTFOUND'
      callback(error, '', 0)
      return
    }
    if (options.all)
      callback(null, usable.map((a): LookupAddress => ({ address: a.address, family: a.family })))
    else
      callback(null, usable[0].address, usable[0].family)
  }
}
