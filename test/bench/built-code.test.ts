import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { builtLoopCode, builtZidane, SOURCE_CODE } from '../../bench/built-code'
import { loopInProcess } from '../../bench/loop-in-process'

// The loop benchmarks measure both sides compiled as hosts run them. These
// checks hold that claim: the code loaded is the build, not the sources
// this process already has; neither side's compiled files keep function
// names (the per-closure cost the sources pay under tsx); and a short
// comparison runs on it. No timing is compared with anything.

/** Every `.js`/`.mjs` file under `dir`, recursively. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return scripts(path)
    return /\.m?js$/.test(entry.name) ? [path] : []
  })
}

describe('the code the loop benchmarks measure', () => {
  it('loads zidane from its build and the floors from compiled files, none keeping function names, and runs a comparison on them', async () => {
    const code = await builtLoopCode()
    for (const [name, part] of Object.entries(code.zidane))
      expect(part, name).not.toBe(SOURCE_CODE.zidane[name as keyof typeof code.zidane])
    expect(code.floors.runFloorLoop).not.toBe(SOURCE_CODE.floors.runFloorLoop)
    expect(code.floors.runOpenAIFloorLoop).not.toBe(SOURCE_CODE.floors.runOpenAIFloorLoop)
    expect(code.floors.runResponsesFloorLoop).not.toBe(SOURCE_CODE.floors.runResponsesFloorLoop)

    const files = [...scripts(builtZidane().dir), ...scripts(join(process.cwd(), 'bench', '.floors-dist'))]
    expect(files.some(file => file.endsWith('floor-loop.mjs'))).toBe(true)
    expect(files.some(file => file.endsWith('index.js'))).toBe(true)
    expect(files.filter(file => readFileSync(file, 'utf8').includes('__name('))).toEqual([])

    for (const provider of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
      const result = await loopInProcess({ provider, callsPerTurn: 1, turns: 3, warmRuns: 0, runs: 1, print: false, code })
      expect(result.turns).toBe(3)
      expect(result.serverRequestsWhileMeasured).toBe(0)
    }
  }, 120_000)
})
