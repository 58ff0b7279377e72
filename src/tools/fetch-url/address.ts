/**
 * IP address literals and the ranges `fetch_url` refuses to reach. Parsing is
 * done here rather than trusted to whatever produced the string: the URL
 * parser normalises legacy IPv4 spellings for http(s), but resolvers, hosts
 * calling the guard directly and future schemes need not, and a blocklist
 * that a spelling can slip past is not a blocklist.
 */

import { isIPv6 } from 'node:net'

const HEX_PREFIX = /^0x/i
const HEX_DIGITS = /^[\da-f]+$/i
const OCTAL_DIGITS = /^[0-7]+$/
const DECIMAL_DIGITS = /^\d+$/

/** Why an address may not be fetched; `kind` lets the test-only loopback hatch pick out loopback alone. */
export interface BlockedAddress {
  kind: 'loopback' | 'private' | 'link-local' | 'unspecified' | 'shared' | 'multicast' | 'reserved'
  reason: string
}

export type IpLiteral
  = | { family: 4, value: number }
    | { family: 6, groups: readonly number[] }

/**
 * Parse an IPv4 literal the way `inet_aton` and the WHATWG URL parser do: one
 * to four dot-separated parts, each decimal, octal (leading `0`) or hex
 * (`0x`), the last part filling the remaining bytes. So `2130706433`,
 * `0177.0.0.1`, `0x7f.0.0.1` and `127.1` all mean 127.0.0.1.
 */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length > 1 && parts.at(-1) === '')
    parts.pop()
  if (parts.length === 0 || parts.length > 4)
    return undefined
  const numbers: number[] = []
  for (const part of parts) {
    const value = parseIPv4Part(part)
    if (value === undefined)
      return undefined
    numbers.push(value)
  }
  const last = numbers.pop()!
  if (numbers.some(n => n > 255) || last >= 256 ** (4 - numbers.length))
    return undefined
  return numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last
}

function parseIPv4Part(part: string): number | undefined {
  let digits = part
  let radix = 10
  if (HEX_PREFIX.test(part)) {
    digits = part.slice(2)
    radix = 16
  }
  else if (part.length > 1 && part.startsWith('0')) {
    digits = part.slice(1)
    radix = 8
  }
  if (digits === '')
    return radix === 16 ? 0 : undefined
  const pattern = radix === 16 ? HEX_DIGITS : radix === 8 ? OCTAL_DIGITS : DECIMAL_DIGITS
  if (!pattern.test(digits))
    return undefined
  const value = Number.parseInt(digits, radix)
  return Number.isSafeInteger(value) ? value : undefined
}

/** Parse an IPv6 literal (brackets allowed, zone ids refused) into its eight 16-bit groups. */
export function parseIPv6(text: string): number[] | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  if (!isIPv6(bare) || bare.includes('%'))
    return undefined
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined]
  const left = groupsOf(head)
  const right = tail === undefined ? [] : groupsOf(tail)
  const missing = 8 - left.length - right.length
  if (tail === undefined ? missing !== 0 : missing < 0)
    return undefined
  return [...left, ...Array.from<number>({ length: missing }).fill(0), ...right]
}

function groupsOf(section: string): number[] {
  if (section === '')
    return []
  const groups: number[] = []
  for (const piece of section.split(':')) {
    if (piece.includes('.')) {
      const v4 = ipv4DottedQuad(piece)
      groups.push(Math.floor(v4 / 65536), v4 % 65536)
    }
    else {
      groups.push(Number.parseInt(piece, 16))
    }
  }
  return groups
}

/** The dotted tail of an IPv6 literal, already validated by `isIPv6` as four decimal bytes. */
function ipv4DottedQuad(text: string): number {
  return text.split('.').reduce((acc, byte) => acc * 256 + Number(byte), 0)
}

/** An IP literal in any accepted spelling, or `undefined` for a host name. */
export function parseIpLiteral(host: string): IpLiteral | undefined {
  const groups = parseIPv6(host)
  if (groups)
    return { family: 6, groups }
  const value = parseIPv4(host)
  return value === undefined ? undefined : { family: 4, value }
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map(shift => Math.floor(value / 2 ** shift) % 256).join('.')
}

/** Why this literal may not be fetched, or `undefined` when it is a public unicast address. */
export function blockedAddress(ip: IpLiteral): BlockedAddress | undefined {
  return ip.family === 4 ? blockedIPv4(ip.value) : blockedIPv6(ip.groups)
}

/** IPv4 ranges that are not public unicast, as [first address, prefix length, kind, label]. */
const IPV4_BLOCKS: readonly [string, number, BlockedAddress['kind'], string][] = [
  ['0.0.0.0', 8, 'unspecified', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'private', 'a private address'],
  ['100.64.0.0', 10, 'shared', 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'loopback', 'a loopback address'],
  ['169.254.169.254', 32, 'link-local', 'the cloud metadata address'],
  ['169.254.0.0', 16, 'link-local', 'a link-local address'],
  ['172.16.0.0', 12, 'private', 'a private address'],
  ['192.0.0.0', 24, 'reserved', 'an IETF protocol assignment address'],
  ['192.0.2.0', 24, 'reserved', 'a documentation address'],
  ['192.168.0.0', 16, 'private', 'a private address'],
  ['198.18.0.0', 15, 'reserved', 'a benchmarking address'],
  ['198.51.100.0', 24, 'reserved', 'a documentation address'],
  ['203.0.113.0', 24, 'reserved', 'a documentation address'],
  ['224.0.0.0', 4, 'multicast', 'a multicast address'],
  ['255.255.255.255', 32, 'multicast', 'the broadcast address'],
  ['240.0.0.0', 4, 'reserved', 'a reserved address'],
]

function blockedIPv4(value: number): BlockedAddress | undefined {
  for (const [base, prefix, kind, label] of IPV4_BLOCKS) {
    const size = 2 ** (32 - prefix)
    const start = parseIPv4(base)!
    if (value >= start && value < start + size)
      return { kind, reason: `${formatIPv4(value)} is ${label}` }
  }
  return undefined
}

function blockedIPv6(g: readonly number[]): BlockedAddress | undefined {
  const text = g.map(n => n.toString(16)).join(':')
  const block = (kind: BlockedAddress['kind'], label: string): BlockedAddress => ({ kind, reason: `${text} is ${label}` })
  const embedded = (label: string, high: number, low: number): BlockedAddress | undefined => {
    const inner = blockedIPv4(high * 65536 + low)
    return inner && { kind: inner.kind, reason: `${text} is ${label} of ${inner.reason}` }
  }
  if (g.slice(0, 4).every(n => n === 0)) {
    if (g.every(n => n === 0))
      return block('unspecified', 'the unspecified address')
    if (g.slice(4, 7).every(n => n === 0) && g[7] === 1)
      return block('loopback', 'the loopback address')
    // A dual-stack socket turns ::ffff:a.b.c.d into a plain IPv4 connection, so the embedded address decides.
    if (g[4] === 0 && g[5] === 0xFFFF)
      return embedded('an IPv4-mapped form', g[6], g[7])
    return block('reserved', 'in a reserved range (IPv4-compatible or translated)')
  }
  if (g[0] === 0x64 && g[1] === 0xFF9B)
    return g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0 ? embedded('a NAT64 form', g[6], g[7]) : block('reserved', 'a local-use NAT64 address')
  if (g[0] === 0x2002)
    return embedded('a 6to4 form', g[1], g[2])
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0)
    return block('reserved', 'a discard-only address')
  if (g[0] === 0x2001 && g[1] === 0)
    return block('reserved', 'a Teredo tunnel address')
  if (g[0] === 0x2001 && g[1] === 0xDB8)
    return block('reserved', 'a documentation address')
  if ((g[0] & 0xFE00) === 0xFC00)
    return block('private', 'a unique local (private) address')
  if ((g[0] & 0xFFC0) === 0xFE80)
    return block('link-local', 'a link-local address')
  if ((g[0] & 0xFFC0) === 0xFEC0)
    return block('private', 'a site-local address')
  if ((g[0] & 0xFF00) === 0xFF00)
    return block('multicast', 'a multicast address')
  return undefined
}
