/**
 * Run with `--allow-natives-syntax`: one short agent run, then print which of
 * the objects the loop reads on every step are fast (not dictionary-mode) in
 * V8. See `src/core/fast-accessors.ts` for why that can change.
 */
import type { BehaviorPolicy, ToolDef } from '../../src'
import { createAgent } from '../../src'
import { BUNDLED_MODEL_CATALOG } from '../../src/providers/catalog/bundled'
import { createMemoryStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

// Built from text so the file parses without the flag (the natives syntax is not JavaScript).
// eslint-disable-next-line no-new-func
const isFast = new Function('value', 'return %HasFastProperties(value)') as (value: unknown) => boolean

const seen: Record<string, boolean> = {}
const tool: ToolDef = {
  spec: { name: 'note', description: 'Reads a note.', inputSchema: { type: 'object', properties: {} } },
  execute: (_input, ctx) => {
    seen.toolContext = isFast(ctx)
    return 'noted'
  },
}
const watcher: BehaviorPolicy = {
  name: 'fast-objects-watcher',
  afterTurn: ({ run }) => {
    seen.runView = isFast(run)
    seen.runTools = isFast((run as { tools?: unknown }).tools)
  },
}
const session = await createSession({ store: createMemoryStore() })
const provider = scriptedProvider([{ toolCalls: [{ name: 'note', input: {} }] }, { text: 'done' }])
const agent = createAgent({ provider, tools: { note: tool }, session, policies: [watcher] })
await agent.run({ prompt: 'read the note' })
seen.session = isFast(session)
seen.agent = isFast(agent)
seen.provider = isFast(provider)
seen.bundledCatalog = isFast(BUNDLED_MODEL_CATALOG)
// The engine behaviour the library works around, for the record: a literal with a getter.
seen.literalWithGetter = isFast({
  a: 1,
  get b() {
    return 2
  },
})
console.log(JSON.stringify(seen))
