/**
 * Serve Restate services from this process on a free loopback port over
 * HTTP/2 cleartext (what the server speaks to deployments), with a `close()`
 * that ends every open stream, so a test can stop its endpoint.
 */
import type { Http2Session } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http2'
import * as restate from '@restatedev/restate-sdk'

export interface ServedEndpoint {
  url: string
  port: number
  close: () => Promise<void>
}

type EndpointOptions = Parameters<typeof restate.createEndpointHandler>[0]

/** Errors only: the SDK logs every invocation's start and end at info. */
const quietLogger: EndpointOptions['logger'] = (meta, message, ...rest) => {
  if (meta.level === 'error')
    console.error('[restate]', message, ...rest)
}

export async function serveEndpoint(services: EndpointOptions['services'], options: { port?: number, defaultServiceOptions?: EndpointOptions['defaultServiceOptions'] } = {}): Promise<ServedEndpoint> {
  const sessions = new Set<Http2Session>()
  const server = createServer(restate.createEndpointHandler({ services, logger: quietLogger, ...(options.defaultServiceOptions ? { defaultServiceOptions: options.defaultServiceOptions } : {}) }))
  server.on('session', (session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  const bound = (server.address() as AddressInfo).port
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => {
      for (const session of sessions)
        session.destroy()
      server.close(() => resolve())
    }),
  }
}
