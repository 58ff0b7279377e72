import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isValidSessionId, sessionFileNamer } from '../../src/session/stores/session-id'

/**
 * The file store names a session's files by concatenation instead of
 * `path.join` on every write; for every id the stores accept, and for the
 * directories `resolve` gives (the root included), the two must agree.
 */
describe('session file names', () => {
  const idChar = fc.constantFrom(...'abcXYZ019_-.')
  const id = fc.tuple(fc.constantFrom(...'aZ0_-'), fc.array(idChar, { maxLength: 20 })).map(([first, rest]) => first + rest.join(''))

  it('are what path.join gives for any valid id, in any resolved directory', () => {
    fc.assert(fc.property(fc.constantFrom('/', '/tmp', '/tmp/a b', 'sessions', './x/../y', '/var//lib/'), id, fc.constantFrom('.jsonl', '.lease', '.lease.last'), (dir, sessionId, suffix) => {
      expect(isValidSessionId(sessionId)).toBe(true)
      const resolved = resolve(dir)
      expect(sessionFileNamer(resolved)(sessionId, suffix)).toBe(join(resolved, `${sessionId}${suffix}`))
    }), { numRuns: 300 })
  })
})
