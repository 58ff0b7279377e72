/**
 * Accessors added to an object after it is built, instead of written as
 * `get x() {}` in its literal. Node 20's V8 builds an object literal that has
 * a getter or a setter in dictionary mode: each read of any of its properties
 * is then a hash lookup instead of a fixed offset, and making the object is a
 * runtime call per property. An accessor defined on the built object leaves
 * it a fast object, but only when every object gets the same getter
 * function: a getter made per object (a closure) cannot share the shape
 * before it, so V8 turns that object into a dictionary too. So each accessor
 * here is one function for all objects, reading through `this`; `withGetters`
 * keeps each object's own closure in a `WeakMap` for its shared getter to
 * call. The accessors stay own, enumerable and configurable, as a literal's
 * are, so spreading or listing the object sees the same keys.
 * `eslint.config.js` refuses accessors in object literals under `src/`.
 */

/** One shared getter per member name, and each object's own source for it. */
interface SharedGetter {
  readonly descriptor: PropertyDescriptor
  readonly sources: WeakMap<object, () => unknown>
}

const sharedGetters = new Map<PropertyKey, SharedGetter>()

function sharedGetter(key: PropertyKey): SharedGetter {
  let shared = sharedGetters.get(key)
  if (!shared) {
    const sources = new WeakMap<object, () => unknown>()
    const get = function (this: object): unknown {
      return sources.get(sourceHolder(sources, this))?.()
    }
    shared = { descriptor: { get, enumerable: true, configurable: true }, sources }
    sharedGetters.set(key, shared)
  }
  return shared
}

/** The object whose source a read goes to: the receiver, or the prototype it inherits the member from (`Object.create(target)`). */
function sourceHolder(sources: WeakMap<object, () => unknown>, receiver: object): object {
  let holder: object | null = receiver
  while (holder !== null && !sources.has(holder))
    holder = Object.getPrototypeOf(holder) as object | null
  return holder ?? receiver
}

/** Complete `target` into an `R` by adding its read-only members `getters` names, each read calling its function. */
export function withGetters<R extends object, K extends keyof R & string>(target: Omit<R, K>, getters: { readonly [P in K]: () => R[P] }): R {
  // `for…in` over the literal of getters: no array of keys made per call (some objects are made per tool call).
  for (const key in getters) {
    const shared = sharedGetter(key)
    shared.sources.set(target, getters[key])
    Object.defineProperty(target, key, shared.descriptor)
  }
  return target as R
}

/** Complete `target` into an `R` by adding several accessors at once (descriptors made once can read the object through `this`). */
export function withAccessors<R extends object, K extends keyof R>(target: Omit<R, K>, accessors: AccessorMap<R, K>): R {
  return Object.defineProperties(target, accessors as PropertyDescriptorMap) as unknown as R
}

/** Accessor descriptors for some members of `R`, each reading the object through `this`. */
export type AccessorMap<R, K extends keyof R = keyof R> = { readonly [P in K]: AccessorDescriptor<R, R[P]> }

/** One accessor: a getter, and a setter when the member is writable. */
export interface AccessorDescriptor<R, V> {
  get: (this: R) => V
  set?: (this: R, value: V) => void
  enumerable: true
  configurable: true
}
