/**
 * What the command's tests share: fake model servers closed after each test,
 * and a user whose Anthropic API is one of them, with a data folder and a
 * working folder of their own.
 */

import type { FakeModelServer } from '../../src/testing'
import { afterEach } from 'vitest'
import { startFakeModelServer } from '../../src/testing'
import { cleanEnv, freshDir } from './process'

type Script = Parameters<typeof startFakeModelServer>[0]['script']

/** A function starting a fake model server for `script`; every server it started is closed after each test of the file. */
export function fakeModelServers(): (script: Script) => Promise<FakeModelServer> {
  const servers: FakeModelServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(server => server.close()))
  })
  return async (script) => {
    const server = await startFakeModelServer({ script })
    servers.push(server)
    return server
  }
}

/** A user with an Anthropic key whose API is `server`, and a data folder of their own. */
export function userOf(server: FakeModelServer) {
  const home = freshDir('home')
  return { home, cwd: freshDir('cwd'), env: cleanEnv({ ANTHROPIC_API_KEY: 'test-key', ZIDANE_HOME: home }), base: ['--base-url', server.url] }
}
