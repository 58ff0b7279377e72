/**
 * The built-in `fetch_url` tool: GET a URL and return it as text the model
 * can read. Every hop of a redirect chain goes through the SSRF guard and the
 * egress allowlist before anything connects, and connects only to the
 * addresses the guard approved.
 */

import type { IncomingMessage } from 'node:http'
import type { ToolDef } from '../types'
import type { FetchCacheOptions } from './cache'
import type { HostResolver, TargetPolicy } from './target-guard'
import { z } from 'zod'
import { startTimer } from '../../core/timer'
import { truncateText } from '../../text/truncate'
import { decodedLooksBinary, looksBinary } from '../file-content'
import { tool } from '../tool'
import { createFetchCache } from './cache'
import { htmlToText } from './html-to-text'
import { openRequest, readBody } from './http-get'
import { numberOption, webToolBehaviorOf } from './settings'
import { checkTarget, FetchRefusedError, precheckTarget, systemResolver } from './target-guard'

const LOOKS_LIKE_HTML = /^\s*<(?:!doctype html|html)/i
const CHARSET_PARAM = /charset\s*=\s*"?([\w-]+)/i

/** Default deadline of one whole fetch, every redirect included. */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000
/** Redirects followed by default before the fetch gives up. */
export const DEFAULT_FETCH_MAX_REDIRECTS = 10
/** Response bytes read by default before the fetch stops reading. */
export const DEFAULT_FETCH_MAX_RESPONSE_BYTES = 5 * 1024 * 1024
/** Characters of page text returned to the model by default. */
export const DEFAULT_FETCH_MAX_OUTPUT_CHARS = 50_000
/**
 * The longest URL the tool takes, in UTF-16 units. Servers refuse request
 * lines far shorter (node's own limit is 16 KiB of headers), and a URL of
 * megabytes would otherwise be resolved, sent and echoed in every error.
 */
export const MAX_FETCH_URL_CHARS = 16 * 1024
/** The longest page title shown in the header; `maxOutputChars` bounds the body, and a `<title>` of megabytes must not slip past it. */
export const MAX_FETCH_TITLE_CHARS = 300

/** The arguments of the `fetch_url` tool. */
export interface FetchUrlInput {
  url: string
}

/** Options of `createFetchUrlTool`. */
export interface FetchUrlToolOptions {
  /** Whole-fetch deadline, all hops included. Default 30000. */
  timeoutMs?: number
  /** Redirects followed before giving up. Default 10. */
  maxRedirects?: number
  /** Bytes of (decompressed) body downloaded; the rest is dropped with a note. Default 5 MiB. */
  maxResponseBytes?: number
  /** Characters of text returned to the model; the rest is dropped with a note. Default 50000. */
  maxOutputChars?: number
  /** How host names are resolved before the address check. Default: the system resolver (`dns.lookup`, all addresses). */
  resolveHost?: HostResolver
  /** Caps and clock of this tool's response cache (used only when `fetchUrlCacheTtlMs` is set). */
  cache?: FetchCacheOptions
  /**
   * TESTS ONLY. Lets requests reach 127.0.0.0/8 and ::1 so a test can run a
   * real server on 127.0.0.1; every other blocked range stays blocked. A host
   * must never set this: it hands the model the machine's local services.
   */
  allowLoopbackForTests?: boolean
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

const DESCRIPTION = [
  'Fetch a web page or other text resource over http(s) and return it as text.',
  'HTML is converted to readable text; links are kept as [text](url). JSON, XML and plain text are returned as is.',
  'Binary content (images, PDFs, archives) is refused. Requests to local, private and internal network addresses are refused, including through redirects.',
].join(' ')

/**
 * Build a `fetch_url` tool. Each instance owns its response cache, so give
 * each agent its own instance when their fetches must not be shared.
 */
export function createFetchUrlTool(options: FetchUrlToolOptions = {}): ToolDef<FetchUrlInput> {
  const timeoutMs = numberOption('fetch_url', 'timeoutMs', options.timeoutMs, DEFAULT_FETCH_TIMEOUT_MS, { min: 1 })
  const maxRedirects = numberOption('fetch_url', 'maxRedirects', options.maxRedirects, DEFAULT_FETCH_MAX_REDIRECTS, { min: 0, integer: true })
  const maxResponseBytes = numberOption('fetch_url', 'maxResponseBytes', options.maxResponseBytes, DEFAULT_FETCH_MAX_RESPONSE_BYTES, { min: 1, integer: true })
  const maxOutputChars = numberOption('fetch_url', 'maxOutputChars', options.maxOutputChars, DEFAULT_FETCH_MAX_OUTPUT_CHARS, { min: 1, integer: true })
  const cache = createFetchCache(options.cache)

  return tool({
    name: 'fetch_url',
    description: `${DESCRIPTION} Output longer than ${maxOutputChars} characters is truncated.`,
    input: z.object({ url: z.string().min(1).describe('Absolute http:// or https:// URL to fetch.') }),
    isConcurrencySafe: true,
    async execute({ url: raw }, ctx) {
      const url = parseUrl(raw)
      const settings = webToolBehaviorOf(ctx.behavior)
      const policy: TargetPolicy = {
        allowHosts: settings.allowHosts,
        resolve: options.resolveHost ?? systemResolver,
        allowLoopback: options.allowLoopbackForTests === true,
      }
      try {
        precheckTarget(url, policy)
      }
      catch (error) {
        throw withRequestContext(error, url, 0)
      }
      if (settings.cacheTtlMs) {
        const cached = cache.get(url.href, settings.cacheTtlMs)
        if (cached !== undefined)
          return cached
      }

      const deadline = new AbortController()
      let timedOut = false
      const timer = startTimer(timeoutMs, () => {
        timedOut = true
        deadline.abort(new Error('timed out'))
      })
      const signal = AbortSignal.any([ctx.signal, deadline.signal])
      try {
        const page = await fetchPage(url, { policy, signal, maxRedirects, maxResponseBytes })
        const output = render(page, maxOutputChars)
        // Only a URL that answered 2xx itself is cached (redirects are not): a hit re-checks the requested URL
        // against the current allowlist, and could not re-check hops it never makes.
        if (settings.cacheTtlMs && page.redirectedFrom === undefined)
          cache.set(url.href, output)
        return output
      }
      catch (error) {
        if (ctx.signal.aborted)
          throw new Error(`fetch of ${url.href} was aborted`)
        if (timedOut)
          throw new Error(`fetch of ${url.href} timed out after ${timeoutMs} ms`)
        // Node's HTTP layer names no URL ("Parse Error: Header overflow", "socket hang up"); the model needs one.
        if (error instanceof Error && !error.message.includes('://'))
          throw new Error(`fetch of ${url.href} failed: ${error.message}`, { cause: error })
        throw error
      }
      finally {
        timer.clear()
      }
    },
  })
}

/** The default `fetch_url` tool; its response cache is shared by every agent using this instance. */
export const fetchUrl: ToolDef<FetchUrlInput> = createFetchUrlTool()

interface FetchSettings {
  policy: TargetPolicy
  signal: AbortSignal
  maxRedirects: number
  maxResponseBytes: number
}

interface FetchedPage {
  url: URL
  redirectedFrom?: URL
  status: number
  statusText: string
  contentType: string
  text: string
  title?: string
  truncatedBytes?: number
}

/** Follow redirects by hand, checking each hop, and read the final response as text. */
async function fetchPage(start: URL, settings: FetchSettings): Promise<FetchedPage> {
  let url = start
  for (let hop = 0; ; hop++) {
    const addresses = await checkTarget(url, settings.policy, settings.signal).catch((error: unknown) => {
      throw withRequestContext(error, url, hop)
    })
    const response = await openRequest(url, addresses, settings.signal)
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (!REDIRECT_STATUSES.has(status) || !location)
      return readPage(response, url, hop > 0 ? start : undefined, settings)
    response.destroy()
    if (hop >= settings.maxRedirects)
      throw new Error(`too many redirects (more than ${settings.maxRedirects}) starting at ${start.href}`)
    try {
      url = new URL(location, url)
    }
    catch {
      throw new Error(`redirect from ${url.href} has an invalid location "${location}"`)
    }
  }
}

async function readPage(response: IncomingMessage, url: URL, redirectedFrom: URL | undefined, settings: FetchSettings): Promise<FetchedPage> {
  const status = response.statusCode ?? 0
  const statusText = response.statusMessage ?? ''
  const contentType = String(response.headers['content-type'] ?? '')
  const kind = contentKind(contentType)
  if (kind === 'binary') {
    response.destroy()
    throw new Error(`${url.href} returned binary content (${mimeOf(contentType)}); fetch_url only returns text`)
  }
  const ok = status >= 200 && status < 300
  const { body, truncated } = await readBody(response, ok ? settings.maxResponseBytes : 4096, settings.signal)
  if (kind === 'unknown' && looksBinary(body))
    throw new Error(`${url.href} returned binary content (no content type); fetch_url only returns text`)
  const decoded = decode(body, contentType, truncated)
  if (ok && kind !== 'unknown' && decodedLooksBinary(decoded))
    throw new Error(`${url.href} returned binary content labelled ${mimeOf(contentType)}; fetch_url only returns text`)
  const html = kind === 'html' || (kind === 'unknown' && LOOKS_LIKE_HTML.test(decoded))
  const converted = html ? htmlToText(decoded, url.href) : { text: decoded, title: undefined }
  if (!ok) {
    const excerpt = truncateText(converted.text.trim(), 300)
    throw new Error(`HTTP ${status}${statusText ? ` ${statusText}` : ''} from ${url.href}${excerpt ? `: ${excerpt}` : ''}`)
  }
  return {
    url,
    redirectedFrom,
    status,
    statusText,
    contentType,
    text: converted.text,
    title: converted.title,
    truncatedBytes: truncated ? settings.maxResponseBytes : undefined,
  }
}

function render(page: FetchedPage, maxOutputChars: number): string {
  const header = [`URL: ${page.url.href}`]
  if (page.redirectedFrom)
    header.push(`Redirected from: ${page.redirectedFrom.href}`)
  header.push(`Status: ${page.status}${page.statusText ? ` ${page.statusText}` : ''}`)
  if (page.contentType)
    header.push(`Content-Type: ${page.contentType}`)
  if (page.title)
    header.push(`Title: ${page.title.length <= MAX_FETCH_TITLE_CHARS ? page.title : `${truncateText(page.title, MAX_FETCH_TITLE_CHARS - 1)}…`}`)
  let body = page.text
  const notes: string[] = []
  if (page.truncatedBytes !== undefined)
    notes.push(`[Truncated: the response was larger than ${page.truncatedBytes} bytes; only the first ${page.truncatedBytes} bytes were read.]`)
  if (body.length > maxOutputChars) {
    // The cut may fall one unit short of the limit, to keep an emoji or other surrogate pair whole.
    const shown = truncateText(body, maxOutputChars)
    notes.push(`[Truncated: showing the first ${shown.length} of ${body.length} characters.]`)
    body = shown
  }
  // The placeholder is not page text: it is never cut.
  return [header.join('\n'), body === '' ? '(empty response body)' : body, ...notes].join('\n\n')
}

function parseUrl(raw: string): URL {
  if (raw.length > MAX_FETCH_URL_CHARS)
    throw new FetchRefusedError(`the URL is ${raw.length} characters long; fetch_url takes URLs of at most ${MAX_FETCH_URL_CHARS} (it starts "${truncateText(raw, 100)}")`)
  try {
    return new URL(raw.trim())
  }
  catch {
    throw new FetchRefusedError(`"${raw}" is not a valid absolute URL`)
  }
}

/** Put the URL (and for a redirect, the hop) in front of a refusal, so the model knows which request was refused. */
function withRequestContext(error: unknown, url: URL, hop: number): unknown {
  if (!(error instanceof FetchRefusedError))
    return error
  return new FetchRefusedError(`refused to fetch ${url.href}${hop > 0 ? ` (redirect ${hop})` : ''}: ${error.message}`)
}

const TEXT_APPLICATION_TYPES = new Set([
  'json',
  'xml',
  'javascript',
  'ecmascript',
  'x-javascript',
  'x-ndjson',
  'yaml',
  'x-yaml',
  'toml',
  'x-sh',
  'graphql',
  'x-www-form-urlencoded',
])

type ContentKind = 'html' | 'text' | 'binary' | 'unknown'

function mimeOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase()
}

function contentKind(contentType: string): ContentKind {
  const mime = mimeOf(contentType)
  if (mime === '')
    return 'unknown'
  if (mime === 'text/html' || mime === 'application/xhtml+xml')
    return 'html'
  if (mime.startsWith('text/') || mime.endsWith('+json') || mime.endsWith('+xml'))
    return 'text'
  const [type, subtype] = mime.split('/')
  if (type === 'application' && TEXT_APPLICATION_TYPES.has(subtype))
    return 'text'
  return 'binary'
}

/**
 * Decode the body in its charset. A byte order mark wins over the header, as
 * in browsers: a UTF-16 body labelled UTF-8 would otherwise read as NULs and
 * garbage. A body cut at the byte cap may end inside a character: decoding it
 * as an unfinished stream leaves that partial character out instead of
 * turning it into U+FFFD, in any charset.
 */
function decode(body: Buffer, contentType: string, truncated: boolean): string {
  return textDecoderFor(bomCharset(body) ?? CHARSET_PARAM.exec(contentType)?.[1]).decode(body, { stream: truncated })
}

/** The charset a byte order mark names; the decoder drops the mark itself. */
function bomCharset(body: Buffer): string | undefined {
  if (body[0] === 0xEF && body[1] === 0xBB && body[2] === 0xBF)
    return 'utf-8'
  if (body[0] === 0xFF && body[1] === 0xFE)
    return 'utf-16le'
  if (body[0] === 0xFE && body[1] === 0xFF)
    return 'utf-16be'
  return undefined
}

/** A decoder for the charset a response names; UTF-8 for none or one this runtime does not know. */
function textDecoderFor(charset: string | undefined) {
  try {
    return new TextDecoder(charset ?? 'utf-8')
  }
  catch {
    return new TextDecoder('utf-8')
  }
}
