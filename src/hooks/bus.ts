import type { Hookable, HookCallback } from 'hookable'
import type { SpawnHooks } from '../tools/spawn-hooks'
import type { DomainEvents } from './domain-events'
import type { AgentHookHandlers, AgentHookMap, AgentHookName, AgentHooks, HookContext, RunHookMap } from './hook-map'
import { createHooks } from 'hookable'
import { withTimeout } from '../core/timeout'
import { debugLog } from '../debug'
import { DECISION_HOOK_NAMES } from '../decisions/hooks'
import { OperationTimeoutError } from '../errors'
import { MCP_HOOK_NAMES } from '../mcp/hooks'
import { PROVIDER_HOOK_NAMES } from '../providers/hooks'
import { SESSION_HOOK_NAMES } from '../session/hooks'
import { TOOL_HOOK_NAMES } from '../tools/hooks'
import { OUTPUT_HOOK_NAMES } from '../tools/output-hooks'
import { SPAWN_HOOK_NAMES } from '../tools/spawn-hooks'
import { hasOwnHandlers, mayReach, trackRegistrations } from './registrations'
import { RUN_HOOK_NAMES } from './run-hooks'

/** Registration typed by `AgentHookHandlers`, so handlers see `ctx.decide`. */
export interface AgentHookRegistration {
  /** Register a handler; returns the function that removes it. */
  hook: <K extends AgentHookName>(name: K, handler: AgentHookHandlers[K], options?: { allowDeprecated?: boolean }) => () => void
  /** Register a handler that runs once, then removes itself. */
  hookOnce: <K extends AgentHookName>(name: K, handler: AgentHookHandlers[K]) => () => void
  /** Register several handlers at once; returns one function that removes them all. */
  addHooks: (hooks: { [K in AgentHookName]?: AgentHookHandlers[K] }) => () => void
}

/**
 * `agent.hooks`: a hookable instance typed by the agent's event map.
 * Registering goes through `AgentHookHandlers` (handlers see `ctx.decide`);
 * `callHook` takes the raw `AgentHooks` contexts, without it.
 */
export type AgentHookBus = AgentHookRegistration & Hookable<AgentHooks>

/** Event names a bus knows beyond its domains' own: those its agent's policies declare (`BehaviorPolicy.events`). */
const DECLARED_EVENTS = new WeakMap<object, ReadonlySet<string>>()

/**
 * A fresh bus that keeps count of its registrations, so unheard hooks can be
 * skipped cheaply. `events` are the names the agent's policies fire (their
 * `events`), known to it besides the domains' own.
 */
export function createHookBus(events: Iterable<string> = []): AgentHookBus {
  const bus = trackRegistrations(createHooks<AgentHooks>()) as AgentHookBus
  DECLARED_EVENTS.set(bus, new Set(events))
  return bus
}

/**
 * The event names of the domains at or below the bus, from the lists each
 * keeps next to its event types. The `satisfies` makes a missing or extra
 * name a compile error. Events of policies are not here: a policy lists its
 * own in `events`, and the agent hands them to `createHookBus`.
 */
const DOMAIN_EVENT_NAMES = {
  ...RUN_HOOK_NAMES,
  ...TOOL_HOOK_NAMES,
  ...SESSION_HOOK_NAMES,
  ...MCP_HOOK_NAMES,
  ...SPAWN_HOOK_NAMES,
  ...DECISION_HOOK_NAMES,
  ...PROVIDER_HOOK_NAMES,
  ...OUTPUT_HOOK_NAMES,
} as const satisfies Record<keyof DomainEvents | keyof SpawnHooks, true>

const DOMAIN_EVENTS: ReadonlySet<string> = new Set(Object.keys(DOMAIN_EVENT_NAMES))

/** Whether `name` is an event `bus` knows, of the agent or of a subagent (`child:<event>`). */
export function isKnownHook(bus: AgentHookBus, name: string): boolean {
  const own = name.startsWith('child:') ? name.slice('child:'.length) : name
  return DOMAIN_EVENTS.has(own) || DECLARED_EVENTS.get(bus)?.has(own) === true
}

/**
 * Register a map of handlers and return one function that removes them all.
 * Unknown event names are refused, so a typo fails loudly instead of never firing.
 */
export function registerHookMap(bus: AgentHookBus, hooks: AgentHookMap | RunHookMap | undefined): () => void {
  if (!hooks)
    return () => {}
  const removers: (() => void)[] = []
  for (const [name, value] of Object.entries(hooks)) {
    if (!isKnownHook(bus, name)) {
      for (const remove of removers) remove()
      throw new TypeError(`Unknown hook "${name}"`)
    }
    const handlers = Array.isArray(value) ? value : [value]
    for (const handler of handlers) {
      if (typeof handler !== 'function')
        continue
      removers.push(bus.hook(name as AgentHookName, handler as never))
    }
  }
  return () => {
    for (const remove of removers) remove()
  }
}

/**
 * Whether calling `name` would reach anyone: one of its handlers, or a
 * `beforeEach` / `afterEach` observer (those see every call). The loop checks
 * this before building a hook's context, so a hook nobody listens to costs
 * neither an object nor an async hop. The answer comes from counting what was
 * registered through the bus's public methods (`trackRegistrations`); a bus
 * built elsewhere always answers `true`.
 */
export function hasHookHandlers(bus: AgentHookBus, name: AgentHookName): boolean {
  return mayReach(bus, name)
}

/** Whether `name` has handlers of its own (observers left out): for an event someone must answer, such as `tool:approval`. */
export function hasAnsweringHandlers(bus: AgentHookBus, name: AgentHookName): boolean {
  return hasOwnHandlers(bus, name)
}

export interface BoundedHookOptions {
  /** `0` or less waits forever. */
  timeoutMs: number
  /**
   * A hook whose handlers change what is about to be sent must not be skipped
   * half-applied: on timeout it throws. Observers just log and the run goes on.
   */
  failClosed: boolean
}

/**
 * Call a hook's handlers in order and wait for each, but never longer than
 * the hook watchdog allows per handler. Bounding each handler (rather than
 * the whole chain) means one stuck observer cannot keep the handlers after
 * it, the built-in policies among them, from running.
 */
export async function callHookBounded<K extends AgentHookName>(
  bus: AgentHookBus,
  name: K,
  ctx: HookContext<K>,
  options: BoundedHookOptions,
): Promise<void> {
  if (!hasHookHandlers(bus, name))
    return
  const callInOrder = (handlers: HookCallback[], args: [HookContext<K>]): Promise<void> | void => {
    for (let index = 0; index < handlers.length; index++) {
      const result = handlers[index](...args)
      if (result && typeof (result as Promise<void>).then === 'function') {
        return waitBounded(result as Promise<void>, name, options)
          .then(() => callInOrder(handlers.slice(index + 1), args))
      }
    }
  }
  // Synchronous handlers leave nothing to wait for: no extra turn of the microtask queue.
  const pending = bus.callHookWith(callInOrder, name, [ctx] as never) as Promise<void> | void
  if (pending)
    await pending
}

/** Wait for one handler's promise; on timeout, throw (fail closed) or log and move on. */
async function waitBounded(pending: Promise<void>, name: string, options: BoundedHookOptions): Promise<void> {
  const operation = `hook "${name}"`
  try {
    await withTimeout(pending, options.timeoutMs, operation)
  }
  catch (error) {
    const timedOut = error instanceof OperationTimeoutError && error.operation === operation
    if (!timedOut || options.failClosed)
      throw error
    debugLog(`a "${name}" handler did not settle within ${options.timeoutMs} ms; continuing`)
  }
}

/**
 * Hookable's serial order (each handler starts once the previous one has
 * settled; a throw rejects) without the console task hookable creates per
 * call, which costs about a microsecond and runs once per streamed delta here.
 */
function callInOrderUnbounded(handlers: HookCallback[], args: unknown[]): Promise<void> | void {
  return callFrom(handlers, args, 0)
}

function callFrom(handlers: HookCallback[], args: unknown[], from: number): Promise<void> | void {
  for (let index = from; index < handlers.length; index++) {
    let result: unknown
    try {
      result = handlers[index](...args)
    }
    catch (error) {
      return Promise.reject(error)
    }
    if (result && typeof (result as Promise<void>).then === 'function')
      return Promise.resolve(result as Promise<void>).then(() => callFrom(handlers, args, index + 1))
  }
}

/**
 * Fire a hook from a synchronous streaming callback. Handlers run in order;
 * an async handler is not awaited (the stream does not wait for observers),
 * and a failure is logged rather than breaking the stream.
 */
export function fireHook<K extends AgentHookName>(bus: AgentHookBus, name: K, ctx: HookContext<K>): void {
  if (!hasHookHandlers(bus, name))
    return
  try {
    const pending = bus.callHookWith(callInOrderUnbounded, name, [ctx] as never) as Promise<void> | void
    if (pending)
      pending.catch(error => debugLog(`hook "${name}" failed`, error))
  }
  catch (error) {
    debugLog(`hook "${name}" failed`, error)
  }
}
