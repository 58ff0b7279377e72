import type { Hookable, HookCallback } from 'hookable'

/**
 * Counts what is registered on a hookable instance through its public methods,
 * so the loop can skip building a hook's context when nobody listens, without
 * reading hookable's private fields. Every doubt answers "someone may listen":
 * a registration this tracker did not see (a hookable upgrade routing it
 * differently, a deprecated name that hookable renames) makes it claim
 * listeners for every event, which costs speed, never a skipped handler.
 */
interface Registrations {
  /** Handlers seen per event name, in registration order (identity matters for `removeHook`). */
  handlers: Record<string, HookCallback[]>
  /** `beforeEach` / `afterEach` observers currently attached; they see every call. */
  observers: number
  /** Set once a registration happened that was not counted: from then on every event may have listeners. */
  opaque: boolean
  /** Bumped by every counted `hook` call, to tell whether a wrapper method went through it. */
  seen: number
}

const REGISTRATIONS: unique symbol = Symbol('zidane.hookRegistrations')

type Tracked = Hookable<any> & { [REGISTRATIONS]?: Registrations }

/** Wrap `bus`'s registering methods so it keeps count of its handlers; returns the same instance. */
export function trackRegistrations<T extends Hookable<any>>(bus: T): T {
  const state: Registrations = { handlers: Object.create(null) as Record<string, HookCallback[]>, observers: 0, opaque: false, seen: 0 }
  const target = bus as Tracked
  const original = {
    hook: bus.hook.bind(bus),
    hookOnce: bus.hookOnce.bind(bus),
    removeHook: bus.removeHook.bind(bus),
    clearHook: bus.clearHook.bind(bus),
    removeAllHooks: bus.removeAllHooks.bind(bus),
    addHooks: bus.addHooks.bind(bus),
    deprecateHook: bus.deprecateHook.bind(bus),
    deprecateHooks: bus.deprecateHooks.bind(bus),
    beforeEach: bus.beforeEach.bind(bus),
    afterEach: bus.afterEach.bind(bus),
  }
  // Set while one of our removers runs, so the `removeHook` it calls inside does not forget a second copy.
  let removing = 0
  const forget = (name: string, handler: HookCallback): void => {
    const list = state.handlers[name]
    const index = list ? list.indexOf(handler) : -1
    if (index !== -1)
      list!.splice(index, 1)
  }
  /** Run a registering method; if it added nothing we counted, stop trusting the counts. */
  const counted = <R>(register: () => R): R => {
    const before = state.seen
    const result = register()
    if (state.seen === before)
      state.opaque = true
    return result
  }
  const observed = (remove: () => void): (() => void) => {
    state.observers++
    let done = false
    return () => {
      if (done)
        return
      done = true
      state.observers--
      remove()
    }
  }
  const overrides = {
    hook: (name: string, handler: HookCallback, options?: { allowDeprecated?: boolean }) => {
      const remove = original.hook(name as never, handler as never, options)
      if (typeof handler !== 'function')
        return remove
      state.seen++
      ;(state.handlers[name] ??= []).push(handler)
      let done = false
      return () => {
        if (done)
          return
        done = true
        removing++
        try {
          remove()
        }
        finally {
          removing--
        }
        forget(name, handler)
      }
    },
    hookOnce: (name: string, handler: HookCallback) => counted(() => original.hookOnce(name as never, handler as never)),
    addHooks: (config: Record<string, unknown>) => Object.keys(config).length === 0 ? original.addHooks(config as never) : counted(() => original.addHooks(config as never)),
    removeHook: (name: string, handler: HookCallback) => {
      if (removing === 0)
        forget(name, handler)
      original.removeHook(name as never, handler as never)
    },
    clearHook: (name: string) => {
      delete state.handlers[name]
      original.clearHook(name as never)
    },
    removeAllHooks: () => {
      state.handlers = Object.create(null) as Record<string, HookCallback[]>
      original.removeAllHooks()
    },
    // A deprecated name is renamed inside hookable: counts by name can no longer be trusted.
    deprecateHook: (name: string, deprecated: unknown) => {
      state.opaque = true
      original.deprecateHook(name as never, deprecated as never)
    },
    deprecateHooks: (deprecated: Record<string, unknown>) => {
      state.opaque = true
      original.deprecateHooks(deprecated as never)
    },
    beforeEach: (observer: (event: never) => void) => observed(original.beforeEach(observer as never)),
    afterEach: (observer: (event: never) => void) => observed(original.afterEach(observer as never)),
  }
  Object.assign(target, overrides)
  Object.defineProperty(target, REGISTRATIONS, { value: state, enumerable: false })
  return bus
}

/**
 * Whether calling `name` on `bus` could reach anyone: a handler of that event
 * or an observer of every event. A bus that was not tracked always may.
 */
export function mayReach(bus: Hookable<any>, name: string): boolean {
  const state = (bus as Tracked)[REGISTRATIONS]
  if (state === undefined || state.opaque || state.observers > 0)
    return true
  const list = state.handlers[name]
  return list !== undefined && list.length > 0
}

/**
 * Whether `name` has handlers of its own, leaving out `beforeEach` /
 * `afterEach` observers (a subagent's bus has one that forwards everything to
 * its parent): for an event that someone must answer, an observer is nobody.
 * A bus built elsewhere answers `true`.
 */
export function hasOwnHandlers(bus: Hookable<any>, name: string): boolean {
  const state = (bus as Tracked)[REGISTRATIONS]
  if (state === undefined || state.opaque)
    return true
  const list = state.handlers[name]
  return list !== undefined && list.length > 0
}
