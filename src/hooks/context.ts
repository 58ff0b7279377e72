import { mergeObjects } from '../core/merge-objects'

/**
 * `{ ...base, ...fields }` as a fresh object, typed as both: the loop's name
 * for `mergeObjects` when it builds hook contexts (several per turn, one per
 * streamed delta), which a leading spread would make slow on Node 20.
 */
export function extendContext<Base extends object, Fields extends object>(base: Base, fields: Fields): Base & Fields {
  return mergeObjects(base, fields) as Base & Fields
}

/** Where the agent keeps, on its hook bus, the prototype of the contexts the loop builds most often. */
const CONTEXT_BASE = Symbol('zidane.hookContextBase')

/**
 * Give the bus a prototype for hot hook contexts (one per streamed delta):
 * `members` are defined on it, non-enumerable, so a context built with
 * `contextFromBase` has them without a property defined per context (a
 * runtime call each) and never spreads, logs or persists them.
 */
export function setContextBase(bus: object, members: PropertyDescriptorMap): void {
  Object.defineProperty(bus, CONTEXT_BASE, { value: Object.create(Object.prototype, members), enumerable: false, configurable: true })
}

/** A new, empty context on the bus's prototype (a plain object when the bus has none). */
export function contextFromBase(bus: object): Record<string, unknown> {
  return Object.create(((bus as Record<symbol, object | undefined>)[CONTEXT_BASE]) ?? Object.prototype) as Record<string, unknown>
}
