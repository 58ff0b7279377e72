import { mergeObjects } from '../core/merge-objects'

/**
 * `{ ...base, ...fields }` as a fresh object, typed as both: the loop's name
 * for `mergeObjects` when it builds hook contexts (several per turn, one per
 * streamed delta), which a leading spread would make slow on Node 20.
 */
export function extendContext<Base extends object, Fields extends object>(base: Base, fields: Fields): Base & Fields {
  return mergeObjects(base, fields) as Base & Fields
}
