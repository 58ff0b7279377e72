/**
 * The HTTP client under every vendor SDK client zidane builds: Node's own
 * `node:http` / `node:https`, handed to the SDK as its `fetch`, whenever the
 * platform's `fetch` is Node's untouched one; that `fetch` otherwise.
 *
 * Why: Node's `fetch` (undici) parses responses with a WebAssembly build of
 * llhttp. The first connection compiles it, and V8 then compiles it again in
 * the background for speed; a Node 20 process that made one request waits
 * for that second compile before it exits (about 60 ms here), and each
 * request pays undici's fetch machinery on top. `node:http` parses with the
 * native llhttp built into Node. Numbers and the rules below:
 * docs/decisions/2026-12-05-node-http-under-the-sdks.md.
 *
 * The SDKs get a real `Response` with the behaviour of `fetch` a caller can
 * see (`node-http-fetch.ts`, `http-body.ts`).
 *
 * The platform's `fetch` carries the request instead when a host has
 * changed how requests go out and would expect zidane's to follow:
 * `globalThis.fetch` replaced (a test's mock, a tracing wrapper), a global
 * undici dispatcher set (a proxy agent, a mock agent), Node's proxy
 * variables switched on, or `ZIDANE_HTTP_CLIENT=fetch` in the environment;
 * and for a request `node:http` would send differently (a body it cannot
 * take as it is, a non-standard method in lower case).
 */

import type { NodeHttpSettings } from './node-http-fetch'
import { HTTP_IDLE_TIMEOUT_MS, nodeHttpFetch, NORMALIZED_METHODS } from './node-http-fetch'

/** Where undici (Node's copy and the npm package alike) keeps the process's global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

const DEFAULTS: NodeHttpSettings = { idleTimeoutMs: HTTP_IDLE_TIMEOUT_MS }

/** `fetch`, carried by `node:http` when nothing says otherwise (see the file's header). */
export function transportFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = nodeHttpCanCarry(input, init)
  return url ? nodeHttpFetch(url, init, DEFAULTS) : fetch(input, init)
}

/** The request's URL when `node:http` can carry it as `fetch` would; `undefined` to leave it to `fetch`. */
function nodeHttpCanCarry(input: string | URL | Request, init: RequestInit | undefined): URL | undefined {
  if (typeof input !== 'string' && !(input instanceof URL))
    return undefined
  const body = init?.body
  if (body != null && typeof body !== 'string' && !ArrayBuffer.isView(body) && !(body instanceof ArrayBuffer))
    return undefined
  if ((init?.redirect !== undefined && init.redirect !== 'follow') || (init as { dispatcher?: unknown } | undefined)?.dispatcher !== undefined)
    return undefined
  // `node:http` sends every method in capitals; fetch keeps the case of all but the six standard ones.
  const method = init?.method
  if (method !== undefined && method !== method.toUpperCase() && !NORMALIZED_METHODS.has(method.toUpperCase()))
    return undefined
  if (!platformFetchIsNodes())
    return undefined
  let url: URL
  try {
    url = new URL(input)
  }
  catch {
    return undefined
  }
  // A URL with credentials in it is refused by fetch; node:http would send them as Basic auth.
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' ? url : undefined
}

/** Node's own proxy support (Node 24's `NODE_USE_ENV_PROXY`, `--use-env-proxy`), read by Node once at start. */
const NODE_PROXY_ON = Boolean(process.env.NODE_USE_ENV_PROXY)
  || process.execArgv.includes('--use-env-proxy')
  || (process.env.NODE_OPTIONS ?? '').includes('--use-env-proxy')

/** The last `globalThis.fetch` found to be Node's own, so the check reads its source once. */
let knownNodeFetch: unknown
/** The last global dispatcher found to be a default one, so the check runs once per dispatcher. */
let knownPlainDispatcher: unknown

/** Whether requests made with `fetch` would go out exactly as Node sends them by default. */
function platformFetchIsNodes(): boolean {
  if (NODE_PROXY_ON || process.env.ZIDANE_HTTP_CLIENT === 'fetch')
    return false
  const platformFetch = globalThis.fetch
  if (platformFetch !== knownNodeFetch) {
    // Node defines `fetch` as a function loading its internal undici; no code outside Node can require that path.
    if (typeof platformFetch !== 'function' || !Function.prototype.toString.call(platformFetch).includes('internal/deps/undici/undici'))
      return false
    knownNodeFetch = platformFetch
  }
  const dispatcher = (globalThis as { [GLOBAL_DISPATCHER]?: unknown })[GLOBAL_DISPATCHER]
  if (dispatcher === undefined || dispatcher === knownPlainDispatcher)
    return true
  if (!isPlainAgent(dispatcher))
    return false
  knownPlainDispatcher = dispatcher
  return true
}

/**
 * Whether a global dispatcher is undici's `Agent` built with no options: the
 * one undici installs when it loads (the SDKs load Node's copy to build their
 * headers), which connects straight to the server as `node:http` does. Any
 * other (a proxy or mock agent, a composed one, an agent with a CA or
 * timeouts of its own), or one whose shape this cannot read, is a host's
 * choice that `fetch` keeps.
 */
function isPlainAgent(dispatcher: unknown): boolean {
  if (typeof dispatcher !== 'object' || dispatcher === null || dispatcher.constructor?.name !== 'Agent')
    return false
  const optionsKey = Object.getOwnPropertySymbols(dispatcher).find(key => key.description === 'options')
  const options = optionsKey && (dispatcher as Record<symbol, unknown>)[optionsKey]
  return typeof options === 'object' && options !== null && Object.values(options).every(value => value === undefined)
}
