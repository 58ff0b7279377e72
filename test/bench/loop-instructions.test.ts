import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { breakdown, categoryOf, loopInstructions, parseCachegrind, perFunction, topDifferences, total } from '../../bench/loop-instructions'
import { runChild } from '../../bench/loop-instructions-child'
import { GLOBAL_DISPATCHER, recordAnswers, saveAnswers } from '../../bench/recorded-answers'

// The instruction-count benchmark's parts that run without valgrind: the
// reader of cachegrind's output, the arithmetic, and one child process's
// work run in this process on a short script. The counting itself needs
// valgrind and minutes, so it is run by hand (bench/README.md).

describe('loop-instructions: cachegrind output', () => {
  const sample = [
    'desc: I1 cache: 32768 B, 64 B, 8-way associative',
    'cmd: node child.mjs',
    'events: Ir',
    'fl=???',
    'fn=???',
    '0 1000',
    '0 500',
    'fl=(1) ./string/memmove.S',
    'fn=(1) __memcpy_avx_unaligned_erms',
    '12 40',
    'fn=(2) v8::internal::compiler::GraphReducer::ReduceTop()',
    '3 700',
    'fl=(2) other.cc',
    'fn=(1)',
    '7 60',
    'fn=v8::internal::Scavenger::ScavengeObject(v8::internal::HeapObject)',
    '1 30 9 9',
    'summary: 2330',
    '',
  ].join('\n')

  it('sums each function over its cost lines, compressed names included', () => {
    const totals = parseCachegrind(sample)
    expect(totals.get('???')).toBe(1500)
    expect(totals.get('__memcpy_avx_unaligned_erms')).toBe(100)
    expect(totals.get('v8::internal::compiler::GraphReducer::ReduceTop()')).toBe(700)
    // Only the first event (instructions) of a line with several is taken.
    expect(totals.get('v8::internal::Scavenger::ScavengeObject(v8::internal::HeapObject)')).toBe(30)
    expect([...totals.values()].reduce((sum, value) => sum + value, 0)).toBe(2330)
  })

  it('reads a large file in one linear pass', () => {
    const lines = ['events: Ir']
    for (let i = 0; i < 50_000; i++) lines.push(`fn=(${i}) f${i}`, '1 2', `fn=(${i})`, '2 3')
    const totals = parseCachegrind(lines.join('\n'))
    expect(totals.size).toBe(50_000)
    expect(totals.get('f49999')).toBe(5)
  })

  it('sorts symbols into the categories it prints', () => {
    expect(categoryOf('???')).toBe('generated code')
    expect(categoryOf('v8::internal::compiler::GraphReducer::ReduceTop()')).toBe('JIT compiler')
    expect(categoryOf('v8::internal::Scavenger::ScavengeObject(v8::internal::HeapObject)')).toBe('garbage collector')
    expect(categoryOf('v8::internal::JsonStringifier::SerializeString(v8::internal::Handle<v8::internal::String>)')).toBe('JSON')
    expect(categoryOf('Builtins_LoadIC')).toBe('V8 builtins')
    expect(categoryOf('__memcpy_avx_unaligned_erms')).toBe('everything else')
  })

  it('takes the difference of two processes per turn, by category, with and without the compiler', () => {
    const base = new Map([['???', 1000], ['Builtins_LoadIC', 100], ['v8::internal::compiler::Node::New()', 50]])
    const more = new Map([['???', 3000], ['Builtins_LoadIC', 300], ['v8::internal::compiler::Node::New()', 250], ['memset', 100]])
    const figures = breakdown(perFunction(more, base, 10))
    expect(figures['generated code']).toBe(200)
    expect(figures['V8 builtins']).toBe(20)
    expect(figures['JIT compiler']).toBe(20)
    expect(figures['everything else']).toBe(10)
    expect(total(figures)).toBe(250)
    expect(total(figures, true)).toBe(230)
  })
})

describe('loop-instructions: one child process, run here', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-instructions-test-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('replays the recorded answers to both loops, checks their turns and gives the dispatcher back', async () => {
    const answersFile = join(dir, 'answers.json')
    writeFileSync(answersFile, JSON.stringify(saveAnswers(await recordAnswers('anthropic', 4, 1, join(dir, 'record')))))
    await fetch('data:,ready')
    const key = GLOBAL_DISPATCHER
    const before = (globalThis as Record<symbol, unknown>)[key]
    const plan = { answersFile, provider: 'anthropic', callsPerTurn: 1, config: 'defaults', turns: 4, warm: 'both', warmRuns: 1, measured: ['floor', 'zidane'], runs: 1 } as const
    await runChild({ ...plan, measured: [...plan.measured] })
    expect((globalThis as Record<symbol, unknown>)[key]).toBe(before)
    // Answers recorded for 4 turns end every run at 4: a plan that expects 5 is refused, not counted.
    await expect(runChild({ ...plan, turns: 5, measured: ['floor'] })).rejects.toThrow(/ran 4 turns, not 5/)
    expect((globalThis as Record<symbol, unknown>)[key]).toBe(before)
  }, 60_000)

  it('says it is skipped when valgrind is not on the PATH', async () => {
    const path = process.env.PATH
    process.env.PATH = dir
    try {
      expect(await loopInstructions({ print: false })).toBeUndefined()
    }
    finally {
      process.env.PATH = path
    }
  })
})

describe('loop-instructions: where zidane spends more', () => {
  it('ranks symbols by the difference per turn, leaving out generated code and the compiler', () => {
    const floor = perFunction(new Map([['Builtins_LoadIC', 500], ['memset', 100], ['???', 10]]), new Map([['Builtins_LoadIC', 100]]), 10)
    const zidane = perFunction(new Map([['Builtins_LoadIC', 900], ['memset', 400], ['???', 900], ['v8::internal::compiler::Node::New()', 9000], ['Builtins_SetDataProperties', 150]]), new Map([['Builtins_LoadIC', 100]]), 10)
    expect(topDifferences(floor, zidane, 2)).toEqual([
      { name: 'Builtins_LoadIC', floor: 40, zidane: 80 },
      { name: 'memset', floor: 10, zidane: 40 },
    ])
    expect(topDifferences(floor, zidane, 5).map(row => row.name)).toEqual(['Builtins_LoadIC', 'memset', 'Builtins_SetDataProperties'])
  })
})
