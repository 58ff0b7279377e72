/**
 * `runHeadless` through the public API: one prompt on a fresh agent, the
 * headless defaults under the caller's behavior, the agent destroyed after
 * the run whether it returned or threw, and the run's stats returned.
 */

import type { PromptPart } from '../../src'
import type { ExecutionContext } from '../../src/contexts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chatProfiles, HEADLESS_BEHAVIOR, runHeadless } from '../../src/chat'
import { createProcessContext } from '../../src/contexts'
import { AgentProviderError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { mediaSeen, pngBase64 } from '../policies/knobs/scenarios/media'

/** A process context that counts its teardowns. */
function countedContext(): { execution: ExecutionContext, destroyed: () => number } {
  const execution = createProcessContext({ cwd: mkdtempSync(join(tmpdir(), 'zidane-headless-')) })
  let count = 0
  const destroy = execution.destroy.bind(execution)
  execution.destroy = async () => {
    count++
    await destroy()
  }
  return { execution, destroyed: () => count }
}

const wide = pngBase64(2400, 12)
const dot: PromptPart = { type: 'image', data: pngBase64(1, 1), mediaType: 'image/png' }

describe('runHeadless', () => {
  it('runs the one prompt, returns its stats and destroys the agent', async () => {
    const provider = scriptedProvider([{ text: 'all green' }])
    const { execution, destroyed } = countedContext()
    const stats = await runHeadless({ provider, execution, prompt: 'run the tests', run: { runLabel: 'ci' } })
    expect(stats).toMatchObject({ stopReason: 'completed', turns: 1 })
    expect(provider.requests).toHaveLength(1)
    expect(provider.requests[0].messages[0].content).toEqual([{ type: 'text', text: 'run the tests' }])
    expect(destroyed()).toBe(1)
  })

  it('destroys the agent when the run throws, and rethrows the run\'s typed error', async () => {
    const { execution, destroyed } = countedContext()
    await expect(runHeadless({ provider: scriptedProvider([]), execution, prompt: 'go' })).rejects.toBeInstanceOf(AgentProviderError)
    expect(destroyed()).toBe(1)
  })

  it('starts from the headless defaults: a 2400 px image is shrunk to 2000 px, media past 80 items ages out', async () => {
    expect(HEADLESS_BEHAVIOR).toEqual({ maxImageEdge: 2000, mediaBudget: { maxItems: 80, maxBytes: 20 * 1024 * 1024 } })
    const provider = scriptedProvider([{ text: 'seen' }, { text: 'seen' }])
    await runHeadless({ provider, prompt: [{ type: 'text', text: 'look' }, { type: 'image', data: wide, mediaType: 'image/png' }] })
    expect(mediaSeen(provider.requests[0].messages)).toEqual(['2000x10'])
    await runHeadless({ provider, prompt: Array.from<PromptPart>({ length: 81 }).fill(dot) })
    expect(mediaSeen(provider.requests[1].messages)[0]).toBe('marker')
  })

  it('lays the caller\'s behavior over the defaults: its knobs win, and a media knob replaces the media pair', async () => {
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }])
    await runHeadless({ provider, behavior: { maxImageEdge: 600 }, prompt: [{ type: 'image', data: wide, mediaType: 'image/png' }] })
    expect(mediaSeen(provider.requests[0].messages)).toEqual(['600x3'])
    const images = Array.from<PromptPart>({ length: 3 }).fill(dot)
    await runHeadless({ provider, behavior: { mediaKeepTurns: 0 }, prompt: images })
    expect(mediaSeen(provider.requests[1].messages)).toEqual(['marker', 'marker', 'marker'])
  })

  it('passes the run\'s options on: a profile\'s tools and system prompt, the turn limit', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'never' }])
    const { execution } = countedContext()
    const stats = await runHeadless({ provider, execution, prompt: 'plan it', run: { profile: chatProfiles.plan, behavior: { maxTurns: 1 } } })
    expect(stats.stopReason).toBe('max-turns')
    expect(provider.requests[0].tools.map(tool => tool.name).sort()).toEqual(['glob', 'grep', 'list_files', 'read_file'])
  })
})
