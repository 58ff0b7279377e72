/**
 * Loading a provider's SDK ahead of its first request. Providers keep their
 * SDK off the import path (`Provider.prepare`), so a process that imports
 * zidane starts quickly; `createAgent` then calls `preloadProvider`, so the
 * load runs while the host does whatever it does before its first run
 * (reading input, connecting MCP servers) instead of inside the first model
 * call.
 */

import type { Provider } from './types'
import { startTimer } from '../core/timer'
import { debugLog } from '../debug'

/**
 * How long after `createAgent`'s own loading settles the SDK load starts. A
 * module load's last file handles close a little after the import resolves,
 * and a timer due before that would fire in a program that is about to exit.
 */
const PRELOAD_DELAY_MS = 50

/**
 * Start loading `provider`'s SDK a moment after `after` has settled, on a
 * timer that does not keep the process alive. So a program that creates an
 * agent and ends without running it exits without loading the SDK (a pending
 * import would hold the exit until it finished), while a program still busy
 * then (waiting for input, connecting MCP servers) loads it in the
 * background. `after` is what `createAgent` itself is loading (the model
 * catalog), which holds the process open until it settles. A run that starts
 * first loads the SDK itself, as it always does.
 */
export function preloadProvider(provider: Provider, after: PromiseLike<unknown>): void {
  const schedule = () => {
    startTimer(PRELOAD_DELAY_MS, () => startProviderLoad(provider)).unref()
  }
  Promise.resolve(after).then(schedule, schedule)
}

/**
 * Call `provider.prepare()` without waiting for it. A failed load is dropped
 * here on purpose: the loop calls `prepare()` again before the first request,
 * where a provider tries the load again and `stream()` reports what still
 * fails. So a broken install surfaces in the run, never as an unhandled
 * rejection or an uncaught throw.
 */
function startProviderLoad(provider: Provider): void {
  let loading: PromiseLike<void> | void
  try {
    loading = provider.prepare?.()
  }
  catch (error) {
    debugLog('the provider could not start loading its SDK', error)
    return
  }
  if (loading)
    Promise.resolve(loading).catch(error => debugLog('the provider could not load its SDK ahead of its first request', error))
}
