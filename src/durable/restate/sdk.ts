/**
 * The Restate SDK, an optional peer, loaded once when `zidane/durable` is
 * imported, with a dynamic `import()`: the same ES module instance the
 * host's `import * as restate from '@restatedev/restate-sdk'` gets, under
 * any loader (plain Node, tsx, a test runner). Restate's endpoint accepts
 * handlers, and tells a terminal error from a retryable one, only by its own
 * instance's symbols and classes: a second copy (the CommonJS build a
 * `require` loads, or a loader's CommonJS transform of the ES build) would be
 * refused as "not a restate handler" and would make every terminal error
 * retryable. The cost of the top-level await: `zidane/durable` loads through
 * `import` only, not `require()`. Without the package the rest of the entry
 * works and the Restate functions throw `MissingPeerDependencyError`.
 */
import type * as Restate from '@restatedev/restate-sdk'
import { MissingPeerDependencyError } from '../../errors'

const PACKAGE = '@restatedev/restate-sdk'

let loadError: unknown
// A top-level await on purpose: only an `import()` gives the host's instance (see above).
// eslint-disable-next-line antfu/no-top-level-await
const loaded: typeof Restate | undefined = await import('@restatedev/restate-sdk').catch((error: unknown) => {
  loadError = error
  return undefined
})

/** The host's SDK instance, or `MissingPeerDependencyError` naming the function that needs it. */
export function restateSdk(feature: string): typeof Restate {
  if (!loaded)
    throw new MissingPeerDependencyError(PACKAGE, `${feature} (zidane/durable)`, { cause: loadError })
  return loaded
}
