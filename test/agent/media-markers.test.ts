import type { SessionMessage, ToolResultContent } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { encodePng } from '../../src/media/png'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { readFile, writeFile } from '../../src/tools'
import { attachmentHandle } from '../../src/wire/stages/media-marker'

// A long run with every stage that can take an image out of a request at once
// (tail compaction, persistence, a media budget and stale-read stubs): each
// image that left the last request must leave a marker naming a handle, and
// read_file on that handle must bring back that very image.

/** A small PNG unique to `n` (its size and its pixels depend on it). */
function png(n: number): string {
  const width = 3 + (n % 5)
  const height = 2 + (n % 3)
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < data.length; i++) data[i] = (n * 37 + i * 11) % 256
  return Buffer.from(encodePng({ width, height, data })).toString('base64')
}

const screenshot = tool({
  name: 'screenshot',
  description: 'Take a screenshot',
  input: z.object({ n: z.number() }),
  // Enough caption text that tail compaction keeps stubbing older results.
  execute: ({ n }): ToolResultContent[] => [{ type: 'text', text: `screenshot ${n}: ${'pixels '.repeat(120)}` }, { type: 'image', data: png(n), mediaType: 'image/png' }],
})

const dump = tool({
  name: 'dump',
  description: 'Dump a log',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => Array.from({ length: 120 }, (_, line) => `log ${n}.${line}: ${'x'.repeat(40)}`).join('\n'),
})

const HANDLE = /attachment:\/\/media-[0-9a-f]{32}/g

/** Every inline image payload of a list of messages, top-level or inside tool results. */
function inlineImages(messages: readonly SessionMessage[]): Set<string> {
  const found = new Set<string>()
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'image' && block.data !== undefined)
        found.add(block.data)
      if (block.type === 'tool_result' && Array.isArray(block.output)) {
        for (const part of block.output) {
          if (part.type === 'image' && part.data !== undefined)
            found.add(part.data)
        }
      }
    }
  }
  return found
}

/** The handles the text of a list of messages names, in order, once each. */
function handlesIn(messages: readonly SessionMessage[]): string[] {
  return [...new Set(JSON.stringify(messages).match(HANDLE) ?? [])]
}

describe('images that leave the wire leave a marker read_file resolves', () => {
  it('over 120 turns with tail compaction, persistence, mediaBudget and stale-read stubs all on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zidane-markers-'))
    const turns: ScriptedTurn[] = []
    const images = new Map<string, string>()
    for (let k = 0; k < 120; k++) {
      const file = join(dir, `figure-${k}.png`)
      switch (k % 5) {
        case 0:
        case 4:
          turns.push({ toolCalls: [{ id: `shot_${k}`, name: 'screenshot', input: { n: k } }] })
          images.set(png(k), `screenshot ${k}`)
          break
        case 1:
          // A figure read from disk, overwritten two turns later: its read goes stale.
          writeFileSync(file, Buffer.from(png(1000 + k), 'base64'))
          images.set(png(1000 + k), `read of ${file}`)
          turns.push({ toolCalls: [{ id: `read_${k}`, name: 'read_file', input: { path: file } }] })
          break
        case 2:
          turns.push({ toolCalls: [{ id: `write_${k}`, name: 'write_file', input: { path: join(dir, `figure-${k - 1}.png`), content: `replaced ${k}` } }] })
          break
        case 3:
          turns.push({ toolCalls: [{ id: `dump_${k}`, name: 'dump', input: { n: k } }, { id: `shot_${k}`, name: 'screenshot', input: { n: k } }] })
          images.set(png(k), `screenshot ${k}`)
          break
      }
    }
    turns.push({ text: 'done' })
    const scripted = scriptedProvider(turns)
    const session = await createSession()
    const agent = createAgent({
      provider: scripted,
      tools: { screenshot, dump, read_file: readFile, write_file: writeFile },
      session,
      behavior: {
        compactStrategy: 'tail',
        compactThreshold: 4000,
        compactKeepTurns: 4,
        persistThreshold: 2000,
        persistDir: join(dir, 'results'),
        mediaBudget: { maxItems: 6 },
        elideStaleReads: 'stub',
        maxTurns: 200,
      },
    })
    const stats = await agent.run({ prompt: 'Work through the figures.' })
    expect(stats.stopReason).toBe('completed')
    expect(scripted.requests).toHaveLength(121)

    const last = scripted.requests.at(-1)!.messages
    const inline = inlineImages(last)
    const gone = [...images.keys()].filter(data => !inline.has(data))
    // Each stage did remove images: far more than the budget's six left the request.
    expect(images.size).toBe(96)
    expect(gone.length).toBe(90)
    const named = new Set(handlesIn(last))
    // Persistence took part: each dump is a stub pointing at a file of its own.
    const persisted = session.turns.flatMap(turn => turn.content).flatMap(block => block.type === 'tool_result' && block.callId.startsWith('dump_') ? [String(block.output)] : [])
    expect(persisted.filter(output => output.startsWith('<persisted-output>'))).toHaveLength(24)
    expect(readdirSync(join(dir, 'results'))).toHaveLength(24)
    // Stale reads and tail compaction took part: no stale image read and no older caption is sent whole.
    expect(JSON.stringify(last)).toContain('tool output compacted')
    expect(session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result' && block.callId.startsWith('write_') && String(block.output).startsWith('Updated '))).toHaveLength(24)
    // The model sees a handle for every image that left, and only for those.
    expect(named.size).toBe(gone.length)

    // Ask for every handle the last request names, and check each image comes back whole.
    const asked = [...named]
    scripted.push({ toolCalls: asked.map((path, i) => ({ id: `back_${i}`, name: 'read_file', input: { path } })) }, { text: 'seen' })
    await agent.run({ prompt: 'Look at every image again.' })
    await agent.destroy()
    const back = new Map(session.turns.flatMap(turn => turn.content).flatMap(block =>
      block.type === 'tool_result' && block.callId.startsWith('back_') ? [[block.callId, block]] as const : []))
    const returned = new Set<string>()
    asked.forEach((handle, i) => {
      const block = back.get(`back_${i}`)!
      expect(block.isError, handle).not.toBe(true)
      const output = block.output as ToolResultContent[]
      expect(output[0]).toEqual({ type: 'text', text: `${handle}:` })
      expect(output[1].type).toBe('image')
      const data = (output[1] as { data: string }).data
      expect(attachmentHandle({ data })).toBe(handle)
      returned.add(data)
    })
    expect([...returned].sort()).toEqual(gone.sort())
  }, 60_000)
})
