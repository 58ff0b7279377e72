/**
 * The one way zidane reaches RE2 (the `re2js` port), the regular expression
 * engine whose matching time is linear in the input for every pattern it
 * accepts. It is used wherever a pattern or the text it runs on comes from
 * outside (a model's `grep`, an MCP server's JSON Schema). Loaded on first
 * use, synchronously, since a schema check cannot wait, and through one
 * `require` so a process holds one copy whichever caller came first.
 */

import type { RE2JS } from 're2js'
// Aliased: a host bundle's banner often declares its own top-level `createRequire`.
import { createRequire as requireFromHere } from 'node:module'

/** `null`: `re2js` could not be loaded (a bundle that left it out). */
let engine: typeof RE2JS | null | undefined

/** The RE2 engine, or `undefined` when the package cannot be loaded. */
export function loadRe2(): typeof RE2JS | undefined {
  if (engine === undefined) {
    try {
      engine = (requireFromHere(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS
    }
    catch {
      engine = null
    }
  }
  return engine ?? undefined
}
