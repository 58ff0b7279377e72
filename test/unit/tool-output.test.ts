import type { ToolResultContent } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { toolOutputBudgetByteLength, toolOutputByteLength, toolResultToText } from '../../src/session/tool-output'

const image: ToolResultContent = { type: 'image', data: 'A'.repeat(1_000), mediaType: 'image/png', name: 'shot.png' }

describe('toolResultToText', () => {
  it('returns a string unchanged', () => {
    expect(toolResultToText('plain')).toBe('plain')
  })

  it('joins blocks with newlines and replaces media with markers', () => {
    const text = toolResultToText([
      { type: 'text', text: 'before' },
      image,
      { type: 'image', ref: 'blob-7', mediaType: 'image/jpeg' },
      { type: 'document', data: 'abc', encoding: 'text', mediaType: 'text/plain' },
      { type: 'text', text: 'after' },
    ])
    expect(text).toBe([
      'before',
      '[image shot.png: image/png, 1000 b64 bytes]',
      '[image: image/jpeg, ref blob-7]',
      '[document: text/plain, 3 b64 bytes]',
      'after',
    ].join('\n'))
    expect(text).not.toContain('AAAA')
  })
})

describe('toolOutputByteLength', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(toolOutputByteLength('abc')).toBe(3)
    expect(toolOutputByteLength('é')).toBe(2)
    expect(toolOutputByteLength('€')).toBe(3)
    expect(toolOutputByteLength('😀')).toBe(4)
    expect(toolOutputByteLength('')).toBe(0)
  })

  it('adds base64 length for inline media and nothing for references', () => {
    expect(toolOutputByteLength([{ type: 'text', text: 'hé' }, image])).toBe(3 + 1_000)
    expect(toolOutputByteLength([{ type: 'image', ref: 'r', mediaType: 'image/png' }])).toBe(0)
    expect(toolOutputByteLength([{ type: 'audio', data: 'QUJD', mediaType: 'audio/wav' }])).toBe(4)
  })
})

describe('toolOutputBudgetByteLength', () => {
  it('counts text like toolOutputByteLength', () => {
    expect(toolOutputBudgetByteLength('naïve')).toBe(toolOutputByteLength('naïve'))
    expect(toolOutputBudgetByteLength([{ type: 'text', text: '😀' }])).toBe(4)
  })

  it('counts media as its short marker, not its payload', () => {
    const marker = '[image shot.png: image/png, 1000 b64 bytes]'
    expect(toolOutputBudgetByteLength([image])).toBe(marker.length)
    expect(toolOutputBudgetByteLength([image])).toBeLessThan(toolOutputByteLength([image]))
  })
})
