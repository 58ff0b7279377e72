/**
 * `$ref` in the schemas zidane checks itself: resolving a local reference
 * (`#`, `#/$defs/node`, any `#/…` JSON Pointer into the same schema), and
 * telling a host at `createAgent` which schema it cannot check: one that
 * refers outside itself, or one whose references loop without ever
 * descending into the value (`{ "$ref": "#" }`), which no value can settle.
 */

type Schema = Record<string, unknown>

/**
 * The subschema a local reference points at, or `undefined` when it is not a
 * local JSON Pointer or points at nothing. Only own properties are followed.
 */
export function resolveLocalRef(root: Schema, ref: string): unknown {
  if (ref === '#')
    return root
  if (!ref.startsWith('#/'))
    return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeToken(raw)
    if (token === undefined || typeof node !== 'object' || node === null || !Object.hasOwn(node, token))
      return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

/** A pointer token: percent-decoded (it sits in a URI fragment), then `~1` → `/` and `~0` → `~`. */
function decodeToken(raw: string): string | undefined {
  let text: string
  try {
    text = decodeURIComponent(raw)
  }
  catch {
    return undefined
  }
  return text.replaceAll('~1', '/').replaceAll('~0', '~')
}

/** Keywords whose subschemas apply to the same value (a loop through them never ends). */
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const
/** Other subschema keywords: walked for their references (the checker applies none of them to the same value). */
const CHILD_SCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'] as const
const CHILD_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const

/**
 * Why zidane cannot check this schema, or `undefined` when it can. Walks the
 * whole schema once without recursion (a deep schema cannot overflow the
 * stack), then looks for a loop among the subschemas that apply to one value.
 */
export function schemaRefProblem(root: Schema): string | undefined {
  // Edges between subschemas that apply to the same value: a `$ref` to its
  // target, a combinator to its members. A cycle among them never ends.
  const sameValue = new Map<object, object[]>()
  const seen = new Set<object>()
  const stack: { node: unknown, at: string }[] = [{ node: root, at: '#' }]
  while (stack.length > 0) {
    const { node, at } = stack.pop()!
    if (typeof node !== 'object' || node === null || seen.has(node))
      continue
    seen.add(node)
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ node: item, at: `${at}/${index}` }))
      continue
    }
    const schema = node as Schema
    const edges: object[] = []
    if (Object.hasOwn(schema, '$ref')) {
      const ref = schema.$ref
      if (typeof ref !== 'string')
        return `the "$ref" at ${at} is not a string`
      const target = resolveLocalRef(root, ref)
      if (target === undefined)
        return `the "$ref" "${ref}" at ${at} does not point inside the schema (only local references such as "#/$defs/name" are supported)`
      if (typeof target === 'object' && target !== null)
        edges.push(target)
    }
    for (const keyword of SAME_VALUE_LISTS) {
      const members = Object.hasOwn(schema, keyword) ? schema[keyword] : undefined
      if (Array.isArray(members)) {
        members.forEach((member, index) => {
          if (typeof member === 'object' && member !== null)
            edges.push(member)
          stack.push({ node: member, at: `${at}/${keyword}/${index}` })
        })
      }
    }
    sameValue.set(schema, edges)
    for (const keyword of CHILD_SCHEMAS) {
      if (Object.hasOwn(schema, keyword))
        stack.push({ node: schema[keyword], at: `${at}/${keyword}` })
    }
    for (const keyword of CHILD_MAPS) {
      const map = Object.hasOwn(schema, keyword) ? schema[keyword] : undefined
      if (typeof map === 'object' && map !== null && !Array.isArray(map)) {
        for (const [key, child] of Object.entries(map))
          stack.push({ node: child, at: `${at}/${keyword}/${key}` })
      }
    }
  }
  return findLoop(sameValue) ? 'its "$ref"s loop back to themselves without describing any part of the value (for example {"$ref": "#"})' : undefined
}

/** Whether the graph has a cycle; iterative depth-first search with three colours. */
function findLoop(graph: Map<object, object[]>): boolean {
  const state = new Map<object, 'open' | 'done'>()
  for (const start of graph.keys()) {
    if (state.has(start))
      continue
    const path: { node: object, next: number }[] = [{ node: start, next: 0 }]
    state.set(start, 'open')
    while (path.length > 0) {
      const top = path.at(-1)!
      const edges = graph.get(top.node) ?? []
      if (top.next >= edges.length) {
        state.set(top.node, 'done')
        path.pop()
        continue
      }
      const target = edges[top.next++]!
      const mark = state.get(target)
      if (mark === 'open')
        return true
      if (mark === undefined) {
        state.set(target, 'open')
        path.push({ node: target, next: 0 })
      }
    }
  }
  return false
}
