/**
 * `{ ...base, ...fields }` as a fresh object: the same keys, in the same
 * order, with the same values. The loop builds its hook contexts with this
 * rather than a spread followed by more properties, because on Node 20 (V8
 * 11) every property written after a spread in an object literal costs about
 * half a microsecond, and the loop builds several such contexts per turn and
 * one per streamed delta.
 */
export function extendContext<Base extends object, Fields extends object>(base: Base, fields: Fields): Base & Fields {
  return Object.assign({}, base, fields)
}
