/**
 * The behavior knobs the web tools read, and the egress allowlist they share.
 * Both tools go through `hostAllowed`, so `fetch_url` and `web_search` cannot
 * disagree about what a list entry covers.
 */

const LEADING_DOTS = /^\.+/

/** Fields of `AgentBehavior` the web tools (`fetch_url`, `web_search`) read. */
export interface WebToolBehavior {
  /** Normalised egress allowlist; `undefined` when unset or empty (no allowlist). */
  allowHosts?: readonly string[]
  /** Response cache lifetime for `fetch_url`; `undefined` when caching is off. */
  cacheTtlMs?: number
}

/** Read the web-tool knobs from a run's behavior, ignoring values of the wrong type. */
export function webToolBehaviorOf(behavior: object): WebToolBehavior {
  const raw = behavior as Record<string, unknown>
  const ttl = raw.fetchUrlCacheTtlMs
  return {
    allowHosts: normalizeAllowHosts(raw.fetchUrlAllowHosts),
    cacheTtlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : undefined,
  }
}

/**
 * Lower-case each entry and drop what the spec says not to match on: leading
 * dots, a port, a trailing root dot. An empty result means "no allowlist", so
 * `[]` cannot lock a host out by accident.
 */
export function normalizeAllowHosts(value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value))
    return undefined
  const entries = value
    .filter((entry): entry is string => typeof entry === 'string')
    .map(normalizeEntry)
    .filter(entry => entry !== '')
  return entries.length > 0 ? entries : undefined
}

function normalizeEntry(entry: string): string {
  let host = entry.trim().toLowerCase().replace(LEADING_DOTS, '')
  if (host.startsWith('[')) {
    const close = host.indexOf(']')
    return canonicalIPv6(close === -1 ? host.slice(1) : host.slice(1, close))
  }
  // One colon is a port; several mean a bare IPv6 literal, which has no port to strip.
  const colons = host.split(':').length - 1
  if (colons > 1)
    return canonicalIPv6(host)
  if (colons === 1)
    host = host.slice(0, host.indexOf(':'))
  return stripRootDot(host)
}

/** The spelling a URL's `hostname` uses for this IPv6 literal, so `[::0:1]` matches `[::1]`. */
function canonicalIPv6(literal: string): string {
  try {
    return new URL(`http://[${literal}]/`).hostname
  }
  catch {
    return `[${literal}]`
  }
}

function stripRootDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host
}

/**
 * Host-suffix match: `example.com` covers `example.com` and `docs.example.com`
 * but not `notexample.com`. `hostname` is a URL's `hostname` (no port).
 * Always true without an allowlist.
 */
export function hostAllowed(hostname: string, allowHosts: readonly string[] | undefined): boolean {
  if (!allowHosts)
    return true
  const host = stripRootDot(hostname.toLowerCase())
  return allowHosts.some(entry => host === entry || host.endsWith(`.${entry}`))
}

/**
 * A numeric option of `createFetchUrlTool` / `createWebSearchTool`, checked
 * once when the tool is built. `NaN` would silently switch a cap off (no
 * comparison with it is ever true), so a bad value throws a `RangeError`
 * naming the option instead of leaving a limit that does nothing.
 */
export function numberOption(tool: string, name: string, value: number | undefined, fallback: number, range: { min: number, max?: number, integer?: boolean }): number {
  if (value === undefined)
    return fallback
  const max = range.max ?? Number.POSITIVE_INFINITY
  const fits = typeof value === 'number' && value >= range.min && value <= max && (!range.integer || Number.isInteger(value) || value === Number.POSITIVE_INFINITY)
  if (!fits)
    throw new RangeError(`${tool}: ${name} must be ${range.integer ? 'an integer' : 'a number'} from ${range.min}${range.max === undefined ? ' up' : ` to ${range.max}`} (got ${String(value)})`)
  return value
}
