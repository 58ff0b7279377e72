import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer } from 'node:http'

/** Path of the loopback redirect URI. */
export const CALLBACK_PATH = '/callback'

/** The loopback redirect target of one authorization: a tiny HTTP server on 127.0.0.1. */
export interface LoopbackCallback {
  readonly port: number
  /** `http://127.0.0.1:<port>/callback` */
  readonly redirectUrl: string
  /**
   * The code of the first callback that carries `state`. Callbacks with another
   * state are refused and the wait goes on; a callback with the right state
   * and an `error` rejects. `close()` rejects a wait still pending.
   */
  waitForCode: (state: string) => Promise<string>
  /** Stop listening and drop open connections. Idempotent. */
  close: () => Promise<void>
}

interface Waiter {
  state: string
  resolve: (code: string) => void
  reject: (error: Error) => void
}

const HTML_SPECIAL = /[&<>"']/g

function escapeHtml(text: string): string {
  return text.replace(HTML_SPECIAL, c => `&#${c.charCodeAt(0)};`)
}

function answer(res: ServerResponse, status: number, title: string, detail: string) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'connection': 'close',
  })
  res.end(`<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>`)
}

/** Listen on 127.0.0.1 (`port` 0: any free port). Rejects with a clear message when the port is taken. */
export async function startLoopbackCallback(port = 0): Promise<LoopbackCallback> {
  let waiter: Waiter | undefined
  let closed = false

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      answer(res, 404, 'Not found', 'This address only receives OAuth redirects.')
      return
    }
    const state = url.searchParams.get('state')
    if (!waiter || state !== waiter.state) {
      // A stale tab or a forged request: the code is not used, and a real answer may still come.
      answer(res, 400, 'Authorization refused', 'The state of this response does not match the authorization in progress.')
      return
    }
    const error = url.searchParams.get('error')
    const code = url.searchParams.get('code')
    const current = waiter
    if (error) {
      const description = url.searchParams.get('error_description')
      waiter = undefined
      answer(res, 400, 'Authorization failed', description ? `${error}: ${description}` : error)
      current.reject(new Error(`the authorization server answered ${error}${description ? ` (${description})` : ''}`))
      return
    }
    if (!code) {
      answer(res, 400, 'Authorization failed', 'The response carries no authorization code.')
      return
    }
    waiter = undefined
    answer(res, 200, 'Authorization complete', 'You can close this window and return to the application.')
    current.resolve(code)
  })

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE'
        ? new Error(`OAuth callback port ${port} on 127.0.0.1 is already in use`, { cause: error })
        : error)
    }
    server.once('error', onError)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError)
      resolve()
    })
  })
  const address = server.address()
  const boundPort = address && typeof address !== 'string' ? address.port : port

  return {
    port: boundPort,
    redirectUrl: `http://127.0.0.1:${boundPort}${CALLBACK_PATH}`,
    waitForCode: (state) => {
      if (closed)
        return Promise.reject(new Error('the OAuth callback listener is closed'))
      waiter?.reject(new Error('superseded by a newer authorization'))
      return new Promise<string>((resolve, reject) => {
        waiter = { state, resolve, reject }
      })
    },
    close: async () => {
      if (closed)
        return
      closed = true
      waiter?.reject(new Error('the OAuth callback listener was closed'))
      waiter = undefined
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    },
  }
}
