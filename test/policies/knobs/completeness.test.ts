import type { AgentBehavior } from '../../../src'
import type { BudgetKnobs } from '../../../src/knobs/budget-knobs'
import type { CompactionKnobs } from '../../../src/knobs/compaction-knobs'
import type { KnobSlice } from '../../../src/knobs/define'
import type { ExecutionKnobs } from '../../../src/knobs/execution-knobs'
import type { FileKnobs } from '../../../src/knobs/file-knobs'
import type { HostKnobs } from '../../../src/knobs/host-knobs'
import type { LimitKnobs } from '../../../src/knobs/limit-knobs'
import type { McpKnobs } from '../../../src/knobs/mcp-knobs'
import type { MediaKnobs } from '../../../src/knobs/media-knobs'
import type { NudgeKnobs } from '../../../src/knobs/nudge-knobs'
import type { OutputKnobs } from '../../../src/knobs/output-knobs'
import type { PersistKnobs } from '../../../src/knobs/persist-knobs'
import type { ProviderKnobs } from '../../../src/knobs/provider-knobs'
import type { RecoveryKnobs } from '../../../src/knobs/recovery-knobs'
import type { RepeatKnobs } from '../../../src/knobs/repeat-knobs'
import type { RetryKnobs } from '../../../src/knobs/retry-knobs'
import type { SessionKnobs } from '../../../src/knobs/session-knobs'
import type { ShellKnobs } from '../../../src/knobs/shell-knobs'
import type { ThinkingKnobs } from '../../../src/knobs/thinking-knobs'
import type { WatchdogKnobs } from '../../../src/knobs/watchdog-knobs'
import type { WebKnobs } from '../../../src/knobs/web-knobs'
import type { KnobScenario } from './harness'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { KNOB_SLICES, KNOBS } from '../../../src/knobs/behavior'
import { budgetScenarios } from './scenarios/budgets'
import { compactionScenarios } from './scenarios/compaction'
import { executionScenarios } from './scenarios/execution'
import { fileScenarios } from './scenarios/files'
import { hostScenarios } from './scenarios/host'
import { limitScenarios } from './scenarios/limits'
import { mcpScenarios } from './scenarios/mcp'
import { mediaScenarios } from './scenarios/media'
import { nudgeScenarios } from './scenarios/nudges'
import { outputScenarios } from './scenarios/output'
import { persistScenarios } from './scenarios/persist'
import { providerScenarios } from './scenarios/provider'
import { recoveryScenarios } from './scenarios/recovery'
import { repeatScenarios } from './scenarios/repeat'
import { retryScenarios } from './scenarios/retry'
import { sessionScenarios } from './scenarios/sessions'
import { shellScenarios } from './scenarios/shell'
import { thinkingScenarios } from './scenarios/thinking'
import { watchdogScenarios } from './scenarios/watchdogs'
import { webScenarios } from './scenarios/web'

// AgentBehavior declares nothing of its own: every key comes from a slice (a compile error otherwise).
type SliceKeys = keyof (LimitKnobs & ProviderKnobs & RetryKnobs & WatchdogKnobs & RecoveryKnobs & ExecutionKnobs & ShellKnobs & McpKnobs & FileKnobs & WebKnobs & SessionKnobs & NudgeKnobs & HostKnobs & RepeatKnobs & BudgetKnobs & ThinkingKnobs & CompactionKnobs & PersistKnobs & MediaKnobs & OutputKnobs)
const onlySliceKeys: [Exclude<keyof AgentBehavior, SliceKeys>] extends [never] ? true : false = true

/** Each slice's scenarios and the test file that runs them. */
const BY_SLICE: Record<string, { scenarios: Record<string, KnobScenario>, file: string }> = {
  'limits': { scenarios: limitScenarios, file: 'limits.test.ts' },
  'provider calls': { scenarios: providerScenarios, file: 'provider.test.ts' },
  'retry': { scenarios: retryScenarios, file: 'retry.test.ts' },
  'watchdogs': { scenarios: watchdogScenarios, file: 'watchdogs.test.ts' },
  'recovery': { scenarios: recoveryScenarios, file: 'recovery.test.ts' },
  'execution': { scenarios: executionScenarios, file: 'execution.test.ts' },
  'shell': { scenarios: shellScenarios, file: 'shell.test.ts' },
  'mcp': { scenarios: mcpScenarios, file: 'mcp.test.ts' },
  'file tools': { scenarios: fileScenarios, file: 'files.test.ts' },
  'web tools': { scenarios: webScenarios, file: 'web.test.ts' },
  'sessions': { scenarios: sessionScenarios, file: 'sessions.test.ts' },
  'nudges': { scenarios: nudgeScenarios, file: 'nudges.test.ts' },
  'host data': { scenarios: hostScenarios, file: 'host.test.ts' },
  'repeat guard': { scenarios: repeatScenarios, file: 'repeat.test.ts' },
  'budgets': { scenarios: budgetScenarios, file: 'budgets.test.ts' },
  'thinking': { scenarios: thinkingScenarios, file: 'thinking.test.ts' },
  'compaction': { scenarios: compactionScenarios, file: 'compaction.test.ts' },
  'large results': { scenarios: persistScenarios, file: 'persist.test.ts' },
  'media': { scenarios: mediaScenarios, file: 'media.test.ts' },
  'output': { scenarios: outputScenarios, file: 'output.test.ts' },
}

describe('every knob has a scenario', () => {
  it('the AgentBehavior keys are exactly the slices\' keys', () => {
    expect(onlySliceKeys).toBe(true)
  })

  it.each(KNOB_SLICES.map(slice => [slice.name, slice] as const))('slice %s: a scenario per knob and per field, run by its test file', (name, slice: KnobSlice<Record<string, unknown>>) => {
    const entry = BY_SLICE[name]
    expect(entry, `slice "${name}" has no scenario module`).toBeDefined()
    expect(Object.keys(entry.scenarios).sort()).toEqual(Object.keys(slice.knobs).sort())
    for (const [knob, meta] of Object.entries(slice.knobs)) {
      const fields = Object.keys(meta.fields?.knobs ?? {}).sort()
      expect(Object.keys(entry.scenarios[knob].fields ?? {}).sort(), `fields of ${knob}`).toEqual(fields)
    }
    const source = readFileSync(fileURLToPath(new URL(entry.file, import.meta.url)), 'utf8')
    expect(source).toMatch(/runSliceScenarios\(\w+_KNOBS, \w+Scenarios\)/)
  })

  it('no slice is missing from the list, and no knob is declared twice', () => {
    expect(KNOB_SLICES.map(slice => slice.name).sort()).toEqual(Object.keys(BY_SLICE).sort())
    const total = KNOB_SLICES.reduce((sum, slice) => sum + Object.keys(slice.knobs).length, 0)
    expect(Object.keys(KNOBS)).toHaveLength(total)
  })
})
