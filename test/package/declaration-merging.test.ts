import type { AgentHookMap, BehaviorPolicy, PolicyEvent, StopReason } from '../../src'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentPolicyError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, toolLoop } from '../support/helpers'

// A host adds a stop reason and an event the way a consumer project does: by
// merging into `StopReasons` and `AgentEventMap` of the package. The host's
// code is compiled here in a program of its own (`zidane` resolving to the
// sources), so its merge never leaks into the repository's own typecheck or
// API reference; the sample in docs/policies.md does the same against the
// built package (test/docs/samples.test.ts).

const root = fileURLToPath(new URL('../..', import.meta.url))

const MERGE = `
declare module 'zidane' {
  interface StopReasons {
    'quota-exhausted': true
  }
  interface AgentEventMap {
    'quota:warning': (ctx: QuotaWarningContext) => void
  }
}
`

/** The host's module: its context type, the merge (or not), and code that uses both. */
function hostSource(merge: boolean): string {
  return `
import type { AgentHookMap, RunHookContext, StopReason } from 'zidane'
import { createAgent, definePolicy } from 'zidane'
import { scriptedProvider } from 'zidane/testing'

export interface QuotaWarningContext extends RunHookContext {
  used: number
  limit: number
}
${merge ? MERGE : ''}
export const quota = definePolicy<{ used: number }>({
  name: 'quota',
  events: ['quota:warning'],
  afterTurn: () => ({
    events: [{ hook: 'quota:warning', context: { used: 2, limit: 2 } }],
    decision: { type: 'stop', reason: 'quota-exhausted' },
  }),
})

export const hooks: AgentHookMap = {
  'quota:warning': ({ used, limit }) => console.log(used, limit),
}

// A subagent's event comes back as child:<event>, derived from the same registry.
export const childHooks: AgentHookMap = {
  'child:quota:warning': ({ childId, used }) => console.log(childId, used),
}

export async function run(): Promise<boolean> {
  const stats = await createAgent({ provider: scriptedProvider([]), policies: [quota], hooks }).run({ prompt: 'go' })
  const reason: StopReason = stats.stopReason
  return reason === 'quota-exhausted'
}

// The union stays closed: a reason nobody declared is still refused.
// @ts-expect-error not a stop reason
export const unknown: StopReason = 'no-such-reason'
`
}

const dir = mkdtempSync(join(tmpdir(), 'zidane-merge-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Compile the host's module against the sources; the errors reported in it, as `line: message`. */
function errorsOf(merge: boolean): string[] {
  const file = join(dir, merge ? 'merged.ts' : 'plain.ts')
  writeFileSync(file, hostSource(merge))
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    paths: { 'zidane': [join(root, 'src/index.ts')], 'zidane/*': [join(root, 'src/*')] },
  })
  // Only the host's file is checked (the sources have their own typecheck), which keeps this fast.
  const source = program.getSourceFile(file)!
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
    .map(diagnostic => `${diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!).line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`)
}

describe('declaration merging: a host\'s stop reasons and events', () => {
  it('a host\'s merged stop reason and event type-check wherever the built-in ones do', () => {
    expect(errorsOf(true)).toEqual([])
  }, 60_000)

  it('without the merge, the same code is refused at each use', () => {
    const errors = errorsOf(false)
    // The policy's \`events\`, its stop decision, both hook maps and the comparison with the stop reason.
    for (const used of [`'"quota:warning"' is not assignable to type 'PolicyEventName'`, `'"quota-exhausted"' is not assignable to type 'StopReason'`, `''quota:warning'' does not exist in type 'AgentHookMap'`, `''child:quota:warning'' does not exist in type 'AgentHookMap'`, `'StopReason' and '"quota-exhausted"' have no overlap`])
      expect(errors.some(error => error.includes(used)), `an error says ${used}:\n${errors.join('\n')}`).toBe(true)
  }, 60_000)
})

// At run time the merge has no part: what the agent needs is the policy's `events`.
// (The casts stand for the merge, which this module does not make.)
function quota(limit: number, declareEvent = true): BehaviorPolicy<{ used: number }> {
  return {
    name: 'quota',
    events: declareEvent ? ['quota:warning' as never] : undefined,
    initialState: () => ({ used: 0 }),
    afterTurn({ state }) {
      const used = state.used + 1
      if (used < limit)
        return { state: { used } }
      const event = { hook: 'quota:warning', context: { used, limit } } as unknown as PolicyEvent
      return { state: { used }, events: [event], decision: { type: 'stop', reason: 'quota-exhausted' as StopReason } }
    },
  }
}

describe('a host\'s stop reason and event at run time', () => {
  it('a host policy stops the run with its reason and fires its event, which hook maps may name', async () => {
    const seen: unknown[] = []
    const agent = createAgent({
      provider: scriptedProvider(toolLoop(5, 'echo')),
      tools: { echo: echoTool('echo') },
      policies: [quota(2)],
      hooks: { 'quota:warning': (ctx: unknown) => void seen.push(ctx) } as AgentHookMap,
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('quota-exhausted')
    expect(stats.turns).toBe(2)
    expect(seen).toEqual([expect.objectContaining({ used: 2, limit: 2, runId: expect.any(String), depth: 0 })])
  })

  it('refuses a hook map naming an event no policy of the agent declares', () => {
    const provider = scriptedProvider([])
    const hooks = (name: string) => ({ [name]: () => {} }) as AgentHookMap
    expect(() => createAgent({ provider, policies: [quota(2, false)], hooks: hooks('quota:warning') })).toThrow(/Unknown hook "quota:warning"/)
    expect(() => createAgent({ provider, policies: [quota(2)], hooks: hooks('child:quota:warning') })).not.toThrow()
  })

  it('refuses an `events` list that is not event names', () => {
    const provider = scriptedProvider([])
    for (const events of ['quota:warning', [''], ['child:quota:warning'], [3]])
      expect(() => createAgent({ provider, policies: [{ name: 'bad', events: events as never }] })).toThrow(AgentPolicyError)
  })
})
