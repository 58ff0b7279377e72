import type { AgentBehavior } from '../../../src'
import type { SliceKnobName } from '../../../src/knobs/behavior'
import type { KnobSlice } from '../../../src/knobs/define'
import type { KnobScenario } from './harness'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { KNOB_SLICES, KNOBS } from '../../../src/knobs/behavior'

// Nothing here lists the slices: they come from KNOB_SLICES, and each slice's
// scenarios from the test file that runs them (`runSliceScenarios(X_KNOBS,
// xScenarios)`), followed through that file's own imports.

// AgentBehavior declares nothing of its own, and every slice of the list is in it (compile errors otherwise).
const onlySliceKeys: [Exclude<keyof AgentBehavior, SliceKnobName>] extends [never] ? true : false = true
const everySliceKey: [Exclude<SliceKnobName, keyof AgentBehavior>] extends [never] ? true : false = true

const dir = fileURLToPath(new URL('.', import.meta.url))
const RUNS = /^runSliceScenarios\((\w+), (\w+)\)$/m
const importOf = (source: string, name: string) => new RegExp(`^import \\{[^}]*\\b${name}\\b[^}]*\\} from '([^']+)'$`, 'm').exec(source)?.[1]

interface SliceRun {
  file: string
  slice: KnobSlice<Record<string, unknown>>
  scenarios: Record<string, KnobScenario>
}

/** Every test file of this folder that runs a slice's scenarios, with the slice and scenarios it imports. */
async function sliceRuns(): Promise<SliceRun[]> {
  const runs: SliceRun[] = []
  for (const file of readdirSync(dir).filter(name => name.endsWith('.test.ts')).sort()) {
    const source = readFileSync(`${dir}${file}`, 'utf8')
    const call = RUNS.exec(source)
    if (!call)
      continue
    const [sliceName, scenariosName] = [call[1], call[2]]
    const [sliceModule, scenariosModule] = [importOf(source, sliceName), importOf(source, scenariosName)]
    expect(sliceModule && scenariosModule, `${file} imports ${sliceName} and ${scenariosName}`).toBeTruthy()
    const slice = (await import(new URL(`${sliceModule}.ts`, `file://${dir}`).href))[sliceName]
    const scenarios = (await import(new URL(`${scenariosModule}.ts`, `file://${dir}`).href))[scenariosName]
    runs.push({ file, slice, scenarios })
  }
  return runs
}

describe('every knob has a scenario', async () => {
  const runs = await sliceRuns()

  it('the AgentBehavior keys are exactly the slices\' keys', () => {
    expect(onlySliceKeys).toBe(true)
    expect(everySliceKey).toBe(true)
  })

  it('every slice of KNOB_SLICES is run by exactly one test file', () => {
    expect(runs.map(run => run.slice.name).sort()).toEqual(KNOB_SLICES.map(slice => slice.name).sort())
    for (const run of runs)
      expect(KNOB_SLICES, `${run.file} runs a slice that is not in KNOB_SLICES`).toContain(run.slice)
  })

  it.each(KNOB_SLICES.map(slice => [slice.name, slice] as const))('slice %s: a scenario per knob and per field', (name, slice) => {
    const run = runs.find(candidate => candidate.slice === slice)
    expect(run, `no test file runs the scenarios of slice "${name}"`).toBeDefined()
    expect(Object.keys(run!.scenarios).sort()).toEqual(Object.keys(slice.knobs).sort())
    for (const [knob, meta] of Object.entries(slice.knobs)) {
      const fields = Object.keys(meta.fields?.knobs ?? {}).sort()
      expect(Object.keys(run!.scenarios[knob].fields ?? {}).sort(), `fields of ${knob}`).toEqual(fields)
    }
  })

  it('no knob is declared twice', () => {
    const total = KNOB_SLICES.reduce((sum, slice) => sum + Object.keys(slice.knobs).length, 0)
    expect(Object.keys(KNOBS)).toHaveLength(total)
  })
})
