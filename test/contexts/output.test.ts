import { describe, expect, it } from 'vitest'
import { CombinedOutput, TailBuffer, tailOfText, utf8BoundaryAtOrAfter, Utf8Carry, utf8CompletePrefixLength } from '../../src/contexts/output'

const bytes = (text: string) => new TextEncoder().encode(text)
const byteLength = (text: string) => bytes(text).length

describe('utf-8 boundaries', () => {
  it('finds the prefix that ends on a whole character', () => {
    const euro = bytes('a€') // 61 e2 82 ac
    expect(utf8CompletePrefixLength(euro)).toBe(4)
    expect(utf8CompletePrefixLength(euro.subarray(0, 3))).toBe(1)
    expect(utf8CompletePrefixLength(euro.subarray(0, 2))).toBe(1)
    const emoji = bytes('🙂') // four bytes
    expect(utf8CompletePrefixLength(emoji.subarray(0, 3))).toBe(0)
    expect(utf8CompletePrefixLength(new Uint8Array())).toBe(0)
  })

  it('skips continuation bytes to the next character start', () => {
    const text = bytes('é!') // c3 a9 21
    expect(utf8BoundaryAtOrAfter(text, 1)).toBe(2)
    expect(utf8BoundaryAtOrAfter(text, 0)).toBe(0)
  })
})

describe('tailBuffer', () => {
  it('keeps everything under the cap and drops nothing', () => {
    const buffer = new TailBuffer(10)
    buffer.push(bytes('hello'))
    expect(buffer.text()).toEqual({ text: 'hello', droppedBytes: 0 })
  })

  it('keeps exactly the cap when the output is exactly the cap', () => {
    const buffer = new TailBuffer(5)
    buffer.push(bytes('he'))
    buffer.push(bytes('llo'))
    expect(buffer.text()).toEqual({ text: 'hello', droppedBytes: 0 })
  })

  it('keeps the newest bytes across chunks and counts the rest', () => {
    const buffer = new TailBuffer(4)
    for (const chunk of ['abc', 'def', 'gh'])
      buffer.push(bytes(chunk))
    expect(buffer.text()).toEqual({ text: 'efgh', droppedBytes: 4 })
    expect(buffer.totalBytes).toBe(8)
  })

  it('never starts inside a multibyte character and counts its orphaned bytes as dropped', () => {
    const buffer = new TailBuffer(4)
    buffer.push(bytes('x€yz')) // 78 e2 82 ac 79 7a: the cut lands inside €
    expect(buffer.text()).toEqual({ text: 'yz', droppedBytes: 4 })
  })

  it('drops everything with a zero cap', () => {
    const buffer = new TailBuffer(0)
    buffer.push(bytes('abc'))
    expect(buffer.text()).toEqual({ text: '', droppedBytes: 3 })
  })
})

describe('combinedOutput', () => {
  it('interleaves streams without splitting a character held across chunks of one stream', () => {
    const output = new CombinedOutput(1024)
    const euro = bytes('€')
    output.write('stdout', euro.subarray(0, 2))
    output.write('stderr', bytes('[err]'))
    output.write('stdout', euro.subarray(2))
    expect(output.finish()).toEqual({ output: '[err]€', truncatedBytes: 0 })
  })

  it('flushes a character left incomplete at the end (decoded as a replacement)', () => {
    const output = new CombinedOutput(1024)
    output.write('stdout', bytes('ok€').subarray(0, 4))
    expect(output.finish().output).toBe('ok\uFFFD')
  })
})

describe('tailOfText', () => {
  it('returns short text untouched', () => {
    expect(tailOfText('', 4)).toEqual({ text: '', droppedBytes: 0 })
    expect(tailOfText('abcd', 4)).toEqual({ text: 'abcd', droppedBytes: 0 })
  })

  it('keeps the tail in bytes, on a boundary', () => {
    const text = 'ééé' // six bytes
    const cut = tailOfText(text, 3)
    expect(cut).toEqual({ text: 'é', droppedBytes: 4 })
    expect(byteLength(cut.text) + cut.droppedBytes).toBe(byteLength(text))
  })
})

describe('utf8Carry', () => {
  it('returns whole characters and holds back the rest', () => {
    const carry = new Utf8Carry()
    const emoji = bytes('🙂')
    expect(carry.take(emoji.subarray(0, 1)).length).toBe(0)
    expect(carry.take(emoji.subarray(1, 3)).length).toBe(0)
    expect(new TextDecoder().decode(carry.take(emoji.subarray(3)))).toBe('🙂')
    expect(carry.flush()).toBeUndefined()
  })
})
