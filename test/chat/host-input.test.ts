/**
 * What a chat host passes through from a client: a profile name looked up
 * in `chatProfiles`, a session id that becomes a folder name. Before, the
 * lookup handed back `Object` for `constructor` (and `Object.prototype` for
 * `__proto__`), two session ids that differ only in a lone surrogate shared
 * one folder on disk (both are written as U+FFFD), an id of megabytes was
 * accepted (and failed later at the first write, deep in a run), and the
 * error for a bad id quoted the whole id.
 */

import { describe, expect, it } from 'vitest'
import { chatPersistDir, chatProfiles, chatTasksDir, resolveChatProfile } from '../../src/chat'

const dataDir = '/srv/chat-data'

describe('chatProfiles looked up by a client\'s name', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('%s finds no profile', (name) => {
    expect((chatProfiles as Record<string, unknown>)[name]).toBeUndefined()
    expect(name in chatProfiles).toBe(false)
  })

  it('the two profiles are still there, frozen', () => {
    expect(Object.keys(chatProfiles)).toEqual(['build', 'plan'])
    expect(chatProfiles.build.name).toBe('build')
    expect(Object.isFrozen(chatProfiles)).toBe(true)
  })
})

describe('a session id from a client', () => {
  it('with a lone surrogate is refused, so no two ids share a folder', () => {
    for (const sessionId of ['a\uD800', 'a\uDBFF', '\uDC00b']) {
      expect(() => chatPersistDir({ dataDir, sessionId })).toThrow(/sessionId must be well-formed text/)
      expect(() => chatTasksDir({ dataDir, sessionId })).toThrow(TypeError)
      expect(() => resolveChatProfile(chatProfiles.build, { dataDir, sessionId })).toThrow(TypeError)
    }
    // A whole pair is fine.
    expect(chatPersistDir({ dataDir, sessionId: 'chat-\uD83D\uDE00' })).toBe(`${dataDir}/tool-results/chat-\uD83D\uDE00`)
  })

  it('over 255 UTF-8 bytes is refused up front; 255 is taken', () => {
    expect(chatPersistDir({ dataDir, sessionId: 'x'.repeat(255) })).toBe(`${dataDir}/tool-results/${'x'.repeat(255)}`)
    expect(() => chatPersistDir({ dataDir, sessionId: 'x'.repeat(256) })).toThrow(/at most 255 UTF-8 bytes/)
    // 86 three-byte characters are 258 bytes.
    expect(() => chatPersistDir({ dataDir, sessionId: '\u20AC'.repeat(86) })).toThrow(/at most 255 UTF-8 bytes/)
  })

  it('that is refused is quoted in the error cut to 80 characters', () => {
    let message = ''
    try {
      chatPersistDir({ dataDir, sessionId: `a/${'y'.repeat(1_000_000)}` })
    }
    catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^chat profile: sessionId must be one path segment, got "a\/y+…$/)
    expect(message.length).toBeLessThan(200)
  })
})
