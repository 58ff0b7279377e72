/**
 * Recognizing failures below the HTTP layer (a reset socket, a refused
 * connection, an aborted fetch), which every provider classifies the same way
 * whatever SDK it uses. Depends on nothing, so it loads no SDK.
 */

/** Error codes of a connection that failed or dropped; the request may be tried again. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])

/** A connection failure, looked for in the error and up to two levels of its causes (fetch wraps them). */
export function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code))
      return true
    if (current.message === 'terminated' || current.message === 'other side closed')
      return true
  }
  return false
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError'
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

const TRAILING_SLASHES = /\/+$/
const URL_IN_TEXT = /https?:\/\/\S+/g

/**
 * The address a request went to, fit for an error message: the API root with
 * the endpoint path appended, without user info or query string, which may
 * carry credentials. `undefined` when the root is not a URL.
 */
export function endpointUrl(baseURL: string | undefined, path: string): string | undefined {
  if (!baseURL)
    return undefined
  let url: URL
  try {
    url = new URL(baseURL)
  }
  catch {
    return undefined
  }
  url.pathname = `${url.pathname.replace(TRAILING_SLASHES, '')}${path}`
  return redactedUrl(url)
}

function redactedUrl(url: URL): string {
  url.username = ''
  url.password = ''
  url.search = ''
  url.hash = ''
  return url.href
}

/** URLs inside a lower layer's message (fetch names the URL it refused), credentials and query removed. */
function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => {
    try {
      return redactedUrl(new URL(found))
    }
    catch {
      return '<url>'
    }
  })
}

/**
 * The innermost reason a connection failed, e.g. `connect ECONNREFUSED
 * 127.0.0.1:9` under the SDK's bare `Connection error.` and fetch's
 * `fetch failed`. A cause with no message (an `AggregateError` of refused
 * addresses) is named by its code.
 */
export function connectionDetail(error: unknown): string {
  let detail = messageOf(error)
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code
    const text = current.message || (typeof code === 'string' ? code : '')
    if (text)
      detail = text
  }
  return redactUrls(detail)
}

/** What a failure below HTTP says: which provider, which URL, what went wrong there. */
export function connectionFailureMessage(kind: 'network' | 'timeout', provider: string, url: string | undefined, error: unknown): string {
  const where = url ? `${provider} at ${url}` : provider
  return kind === 'timeout' ? `The request to ${where} timed out` : `Connection to ${where} failed: ${connectionDetail(error)}`
}
