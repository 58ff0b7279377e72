import type { PolicyScriptStep } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { suggestToolNames } from '../../src/policies/tool-name-suggestions'
import { unknownToolRecovery } from '../../src/policies/unknown-tool-recovery'
import { runPolicyScript } from '../../src/testing'

const TOOLS = ['read_file', 'write_file', 'edit', 'multi_edit', 'grep', 'shell']
const unknown = (name: string): PolicyScriptStep => ({ phase: 'result', call: { name }, result: `Error: there is no tool named "${name}".`, isError: true })
const endTurn: PolicyScriptStep = { phase: 'afterTurn', toolResults: [{ callId: 'c', output: 'x', isError: true }] }
function textsOf(step: { phase: string, messages?: readonly { content: readonly { type: string, text?: string }[] }[] }) {
  return (step.messages ?? []).map(message => message.content.map(block => block.text).join(''))
}

describe('unknown-tool-recovery', () => {
  it('is off unless set to an object', async () => {
    for (const behavior of [{}, { unknownToolRecovery: false as const }])
      expect((await runPolicyScript(unknownToolRecovery, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('after a call of an unregistered name, nudges once with the closest advertised names; the result is left as it was', async () => {
    const { steps } = await runPolicyScript(unknownToolRecovery, { behavior: { unknownToolRecovery: {} }, tools: TOOLS, steps: [unknown('readFile'), endTurn] })
    expect(steps[0]).toMatchObject({ phase: 'result', result: 'Error: there is no tool named "readFile".', isError: true })
    expect(steps[1]).toMatchObject({ phase: 'afterTurn', keepGoing: false, messages: [{ injected: 'unknown-tool-recovery', content: [{ origin: 'injected' }] }] })
    expect(textsOf(steps[1] as never)).toEqual(['There is no tool named "readFile". Did you mean "read_file"? Call the tool you meant by its exact name.'])
  })

  it('ignores errors of registered tools and successful results', async () => {
    const { steps } = await runPolicyScript(unknownToolRecovery, {
      behavior: { unknownToolRecovery: {} },
      tools: TOOLS,
      steps: [{ phase: 'result', call: { name: 'edit' }, result: 'Error: old_string not found', isError: true }, { phase: 'result', call: { name: 'nope' }, result: 'fine', isError: false }, endTurn],
    })
    expect(textsOf(steps[2] as never)).toEqual([])
  })

  it('names each distinct unknown name of a turn once, and stops at maxNudges for the run', async () => {
    const { steps } = await runPolicyScript(unknownToolRecovery, {
      behavior: { unknownToolRecovery: { maxNudges: 3 } },
      tools: TOOLS,
      steps: [unknown('Grep'), unknown('Grep'), unknown('bash'), endTurn, unknown('Edit'), unknown('cat'), endTurn, unknown('Shell'), endTurn],
    })
    const [first, second, third] = steps.filter(step => step.phase === 'afterTurn').map(step => textsOf(step as never))
    expect(first).toEqual([
      'There is no tool named "Grep". Did you mean "grep"? Call the tool you meant by its exact name.',
      'There is no tool named "bash". Call only the tools this run offers, by their exact names.',
    ])
    expect(second).toEqual(['There is no tool named "Edit". Did you mean "edit"? Call the tool you meant by its exact name.'])
    expect(third).toEqual([])
    expect(steps.at(-1)!.state).toEqual({ nudges: 3, pending: [] })
  })

  it('builds the text with the message function, or sends a string verbatim', async () => {
    const made = await runPolicyScript(unknownToolRecovery, {
      behavior: { unknownToolRecovery: { maxSuggestions: 2, message: ({ called, suggestions }) => `${called}? try ${suggestions.join(', ')}` } },
      tools: TOOLS,
      steps: [unknown('file_edit'), endTurn],
    })
    expect(textsOf(made.steps[1] as never)).toEqual(['file_edit? try edit, multi_edit'])
    const fixed = await runPolicyScript(unknownToolRecovery, { behavior: { unknownToolRecovery: { message: 'Use the listed tools.' } }, tools: TOOLS, steps: [unknown('x'), endTurn] })
    expect(textsOf(fixed.steps[1] as never)).toEqual(['Use the listed tools.'])
  })
})

describe('suggestToolNames', () => {
  it('folds case, separators and camel humps, and prefers an exact folded match', () => {
    expect(suggestToolNames('ReadFile', TOOLS, 3)).toEqual(['read_file'])
    expect(suggestToolNames('read-file', TOOLS, 3)).toEqual(['read_file'])
    // The same words in another order count as the same name.
    expect(suggestToolNames('file_read', TOOLS, 3)).toEqual(['read_file'])
    expect(suggestToolNames('file', TOOLS, 3)).toEqual(['read_file', 'write_file'])
  })

  it('finds near misses by edit distance (swaps count once) and by containment', () => {
    expect(suggestToolNames('reda_file', TOOLS, 1)).toEqual(['read_file'])
    expect(suggestToolNames('grp', TOOLS, 1)).toEqual(['grep'])
    expect(suggestToolNames('multi', TOOLS, 3)).toEqual(['multi_edit'])
  })

  it('suggests nothing far away, and nothing with a limit of 0', () => {
    expect(suggestToolNames('bash', TOOLS, 3)).toEqual([])
    expect(suggestToolNames('read_file', TOOLS, 0)).toEqual([])
  })
})
