import type { ToolResultBlock } from '../../src/core/content'
import { describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createAskUserTool, createInteractionTools, createPresentPlanTool } from '../../src/tools/interaction'
import { deferred } from '../support/helpers'
import { bareToolContext, callTool } from '../support/local-http'

/** The tool results the model received on its second request. */
function resultsSentBack(provider: ReturnType<typeof scriptedProvider>): ToolResultBlock[] {
  return provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
}

describe('createInteractionTools', () => {
  it('creates only the tools whose callbacks the host gave', () => {
    expect(Object.keys(createInteractionTools({}))).toEqual([])
    expect(Object.keys(createInteractionTools({ askUser: async () => '' }))).toEqual(['ask_user'])
    expect(Object.keys(createInteractionTools({ presentPlan: async () => ({ approved: true }) }))).toEqual(['present_plan'])
    const both = createInteractionTools({ askUser: async () => '', presentPlan: async () => ({ approved: true }) })
    expect(Object.values(both).map(def => def.spec.name)).toEqual(['ask_user', 'present_plan'])
  })
})

describe('ask_user', () => {
  it('puts the question and options to the host and returns the answer to the model in a run', async () => {
    const askUser = vi.fn(async (question: string, { options }: { options?: readonly string[] }) => `${question} -> ${options?.[1]}`)
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'ask_user', input: { question: 'Which database?', options: ['sqlite', 'postgres'] } }] },
      { respond: request => ({ text: String((request.messages.at(-1)!.content[0] as ToolResultBlock).output) }) },
    ])
    const stats = await createAgent({ provider, tools: createInteractionTools({ askUser }) }).run({ prompt: 'set up storage' })
    expect(askUser).toHaveBeenCalledWith('Which database?', expect.objectContaining({ options: ['sqlite', 'postgres'], signal: expect.any(AbortSignal) }))
    expect(stats.text).toBe('The user answered: Which database? -> postgres')
  })

  it('says so when the answer is empty', async () => {
    expect(await callTool(createAskUserTool(async () => '   '), { question: 'Anything?' })).toBe('The user gave no answer.')
  })

  it('rejects an empty question before asking', async () => {
    const askUser = vi.fn(async () => 'x')
    await expect(callTool(createAskUserTool(askUser), { question: ' ' })).rejects.toThrow(/question/)
    expect(askUser).not.toHaveBeenCalled()
  })

  it('ends the call when the run is aborted, even if the host ignores the signal', async () => {
    const controller = new AbortController()
    const asked = deferred()
    let hostSignal: AbortSignal | undefined
    const askUser = (_question: string, { signal }: { signal: AbortSignal }) => {
      hostSignal = signal
      asked.resolve()
      return new Promise<string>(() => {})
    }
    const pending = callTool(createAskUserTool(askUser), { question: 'Wait?' }, bareToolContext({ signal: controller.signal }))
    await asked.promise
    controller.abort()
    await expect(pending).rejects.toThrow(/ask_user was aborted before the user answered/)
    expect(hostSignal?.aborted).toBe(true)
  })

  it('does not reach the host when the run is already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const askUser = vi.fn(async () => 'x')
    await expect(callTool(createAskUserTool(askUser), { question: 'Q?' }, bareToolContext({ signal: controller.signal }))).rejects.toThrow(/aborted/)
    expect(askUser).not.toHaveBeenCalled()
  })

  it('aborting the agent while the user is asked stops the run with the call paired', async () => {
    const asked = deferred()
    const provider = scriptedProvider([{ toolCalls: [{ name: 'ask_user', input: { question: 'Hold on?' } }] }])
    const agent = createAgent({
      provider,
      tools: createInteractionTools({ askUser: () => {
        asked.resolve()
        return new Promise<string>(() => {})
      } }),
    })
    const running = agent.run({ prompt: 'go' })
    await asked.promise
    agent.abort()
    const stats = await running
    expect(stats.stopReason).toBe('aborted')
  })
})

describe('present_plan', () => {
  const runPlan = async (decision: { approved: boolean, feedback?: string }) => {
    const presentPlan = vi.fn(async () => decision)
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'present_plan', input: { plan: '1. Add tests\n2. Fix bug' } }] },
      { text: 'ok' },
    ])
    await createAgent({ provider, tools: createInteractionTools({ presentPlan }) }).run({ prompt: 'plan it' })
    expect(presentPlan).toHaveBeenCalledWith('1. Add tests\n2. Fix bug', expect.objectContaining({ signal: expect.any(AbortSignal) }))
    return resultsSentBack(provider)[0]
  }

  it('tells the model an approval, with any feedback', async () => {
    expect((await runPlan({ approved: true })).output).toBe('The user approved the plan. Carry it out.')
    expect((await runPlan({ approved: true, feedback: 'skip step 2' })).output).toBe('The user approved the plan, with feedback: skip step 2')
  })

  it('tells the model a rejection and passes the feedback on, without marking it an error', async () => {
    const result = await runPlan({ approved: false, feedback: 'Too risky' })
    expect(result.output).toBe('The user rejected the plan. Feedback: Too risky\nRevise the plan and present it again.')
    expect(result.isError).toBeUndefined()
    expect((await runPlan({ approved: false })).output).toMatch(/^The user rejected the plan without feedback\./)
  })

  it('reports a failing host callback as an error result', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'present_plan', input: { plan: 'p' } }] }, { text: 'ok' }])
    const tools = { present_plan: createPresentPlanTool(async () => {
      throw new Error('UI closed')
    }) }
    await createAgent({ provider, tools }).run({ prompt: 'go' })
    expect(resultsSentBack(provider)[0]).toMatchObject({ output: 'Error: UI closed', isError: true })
  })
})
