/**
 * The Restate SDK, an optional peer, loaded on first use, synchronously.
 * It must be the package's ES module build, the same instance the host's
 * `import * as restate from '@restatedev/restate-sdk'` gets: Restate's
 * endpoint recognizes a handler, and tells a terminal error from a
 * retryable one, by that instance's own symbols and classes, so a second
 * copy (the CommonJS build a plain `require` would load) would be refused
 * as "not a restate handler" and would make every terminal error retryable.
 * Node (≥ 20.19) loads an ES module through `require()` from the same module
 * cache `import` uses, so requiring the build's file by path gives that
 * instance without a top-level await, and `zidane/durable` stays loadable
 * through `require()`. Without the package, the rest of `zidane/durable`
 * works and the Restate functions throw `MissingPeerDependencyError`.
 */
import type * as Restate from '@restatedev/restate-sdk'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { MissingPeerDependencyError } from '../../errors'

const PACKAGE = '@restatedev/restate-sdk'

let loaded: typeof Restate | undefined

/** The host's SDK instance, or `MissingPeerDependencyError` naming the function that needs it. */
export function restateSdk(feature: string): typeof Restate {
  if (loaded)
    return loaded
  const require = createRequire(import.meta.url)
  let manifestPath: string
  try {
    manifestPath = require.resolve(`${PACKAGE}/package.json`)
  }
  catch (error) {
    throw new MissingPeerDependencyError(PACKAGE, `${feature} (zidane/durable)`, { cause: error })
  }
  const manifest = require(manifestPath) as { module?: string, exports?: { '.'?: { import?: string } } }
  const entry = manifest.exports?.['.']?.import ?? manifest.module
  if (!entry)
    throw new MissingPeerDependencyError(PACKAGE, `${feature} (zidane/durable): its ES module build was not found`)
  loaded = require(join(dirname(manifestPath), entry)) as typeof Restate
  return loaded
}
