import type { SessionMessage, ToolResultContent } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { encodePng } from '../../src/media/png'
import { MAX_SUMMARIZED_MEDIA_MARKERS } from '../../src/policies/compact-summary'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { readFile } from '../../src/tools'
import { attachmentHandle } from '../../src/wire/stages/media-marker'

// Auto-compaction replaces older turns with a summary, and the images in them
// leave the wire with them: each must leave the marker the other stages leave,
// so read_file can bring it back.

function png(n: number): string {
  const data = new Uint8Array(3 * 2 * 4).map((_, i) => (n * 31 + i * 7) % 256)
  return Buffer.from(encodePng({ width: 3, height: 2, data })).toString('base64')
}

const screenshot = tool({
  name: 'screenshot',
  description: 'Take a screenshot',
  input: z.object({ n: z.number() }),
  execute: ({ n }): ToolResultContent[] => [{ type: 'text', text: `screenshot ${n}` }, { type: 'image', data: png(n), mediaType: 'image/png' }],
})

const HANDLE = /attachment:\/\/media-[0-9a-f]{32}/g
const handlesIn = (messages: readonly SessionMessage[]) => [...new Set(JSON.stringify(messages).match(HANDLE) ?? [])]

/** Shots 0..count-1, the last one crossing the auto-compaction threshold, then the summary call. */
function script(count: number): ScriptedTurn[] {
  const turns: ScriptedTurn[] = Array.from({ length: count }, (_, n) => ({ toolCalls: [{ id: `shot_${n}`, name: 'screenshot', input: { n } }], usage: { input: n === count - 1 ? 950 : 10 } }))
  turns.push({ text: 'We took screenshots.' })
  return turns
}

describe('auto-compaction leaves a marker for each image it takes off the wire', () => {
  it('lists the summarized images, and read_file brings each back', async () => {
    const provider = scriptedProvider(script(5))
    const session = await createSession()
    const agent = createAgent({ provider, session, tools: { screenshot, read_file: readFile }, behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } } })
    // After the compaction: read back every image the next request names, then stop.
    provider.push({ respond: request => ({ toolCalls: handlesIn(request.messages).map((path, i) => ({ id: `back_${i}`, name: 'read_file', input: { path } })) }) }, { text: 'done' })
    const stats = await agent.run({ prompt: 'Take the screenshots.' })
    expect(stats.stopReason).toBe('completed')

    const afterCompaction = provider.requests[6]!.messages
    expect(JSON.stringify(afterCompaction)).toContain('We took screenshots.')
    // Shots 0-3 were summarized (the last two messages, shot 4's call and result, stay whole).
    const named = handlesIn(afterCompaction)
    expect(named).toEqual([0, 1, 2, 3].map(n => attachmentHandle({ data: png(n) })))
    const back = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result' && block.callId.startsWith('back_'))
    expect(back).toHaveLength(4)
    back.forEach((block, i) => {
      const output = (block as { output: ToolResultContent[] }).output
      expect(output[1]).toMatchObject({ type: 'image', data: png(i) })
    })
  })

  it('lists at most the newest 64, and says how many older ones are left out', async () => {
    const count = MAX_SUMMARIZED_MEDIA_MARKERS + 10
    const provider = scriptedProvider([...script(count), { text: 'done' }])
    const agent = createAgent({ provider, session: await createSession(), tools: { screenshot }, behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false }, maxTurns: 200 } })
    await agent.run({ prompt: 'Take the screenshots.' })
    const text = JSON.stringify(provider.requests.at(-1)!.messages)
    const named = [...new Set(text.match(HANDLE))]
    expect(named).toHaveLength(MAX_SUMMARIZED_MEDIA_MARKERS)
    expect(named.at(-1)).toBe(attachmentHandle({ data: png(count - 2) }))
    expect(text).toContain(`${count - 1 - MAX_SUMMARIZED_MEDIA_MARKERS} older ones are not listed`)
  })
})
