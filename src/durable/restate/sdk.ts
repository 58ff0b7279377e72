/**
 * The Restate SDK, an optional peer, loaded once when `zidane/durable` is
 * imported. It is the package's ES module build, the same copy the host's
 * `restate.serve` / `restate.endpoint` use: the SDK tells a terminal error
 * from a retryable one with `instanceof`, so a second (CommonJS) copy would
 * make every terminal error retryable. Without the package installed the
 * rest of `zidane/durable` still works; the Restate functions throw
 * `MissingPeerDependencyError` when called.
 */
import type * as Restate from '@restatedev/restate-sdk'
import { MissingPeerDependencyError } from '../../errors'

const PACKAGE = '@restatedev/restate-sdk'

let loadError: unknown
// A top-level await on purpose: a synchronous require would load the CommonJS copy (see above).
// eslint-disable-next-line antfu/no-top-level-await
const loaded: typeof Restate | undefined = await import('@restatedev/restate-sdk').catch((error: unknown) => {
  loadError = error
  return undefined
})

/** The loaded SDK, or `MissingPeerDependencyError` naming the function that needs it. */
export function restateSdk(feature: string): typeof Restate {
  if (!loaded)
    throw new MissingPeerDependencyError(PACKAGE, `${feature} (zidane/durable)`, { cause: loadError })
  return loaded
}
