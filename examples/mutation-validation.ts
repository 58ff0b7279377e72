/**
 * Mutation validation: check the files an agent changed after every tool
 * round, and tell the model at once when a change broke something.
 *
 *   node --import tsx examples/mutation-validation.ts
 *
 * The `basic` preset works on a small project in a temp dir. After each
 * round that created, updated or edited a file, `validate` runs the
 * project's test with `node` through the agent's execution context; a failure
 * is steered to the model, which fixes the file in the next turn.
 *
 * With ANTHROPIC_API_KEY set, Claude does the work; without it a scripted
 * model writes a broken file first, reads the failure it is sent, and fixes it.
 */
import type { Provider, StreamOptions } from 'zidane'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, createMutationValidationHooks } from 'zidane'
import { createProcessContext } from 'zidane/contexts'
import { basic } from 'zidane/presets'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'

const dir = mkdtempSync(join(tmpdir(), 'zidane-mutation-validation-'))
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
writeFileSync(join(dir, 'test.js'), [
  'import assert from \'node:assert/strict\'',
  'import { slugify } from \'./slugify.js\'',
  'assert.equal(slugify(\'Hello World\'), \'hello-world\')',
  'console.log(\'ok\')',
  '',
].join('\n'))
const execution = createProcessContext({ cwd: dir })
const ERROR_LINE = /Error/
const LINE_START = /^/gm

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted and reacts to the failure it is sent.\n')

const agent = createAgent({
  ...basic,
  provider: live ? anthropic() : offlineModel(),
  execution,
  behavior: { maxTurns: 8 },
  hooks: createMutationValidationHooks({
    validate: async ({ mutations }) => {
      console.log(`  [validate] ${mutations.map(m => `${String(m.input.path)} (${m.outcome})`).join(', ')}`)
      const test = await execution.exec('node test.js', { timeoutMs: 30_000 })
      if (test.exitCode === 0)
        return { ok: true }
      const firstError = test.output.split('\n').find(line => ERROR_LINE.test(line)) ?? test.output.trim()
      return { ok: false, message: '`node test.js` failed.', errors: [firstError] }
    },
    onFailure: ({ message, failureCount }) => {
      console.log(`  [failure ${failureCount}] steered to the model:\n${message.replace(LINE_START, '    ')}`)
      agent.steer(message)
    },
  }),
})
agent.hooks.hook('tool:after', ({ name, input, outcome }) => console.log(`  -> ${name}(${String(input.path ?? input.command ?? '')})${outcome ? ` ${outcome}` : ''}`))

try {
  const stats = await agent.run({ prompt: 'Create slugify.js exporting slugify(text): lowercase, words joined by "-". test.js must pass.' })
  console.log(`\nmodel: ${stats.text}`)
  console.log(`stop: ${stats.stopReason} · turns: ${stats.turns}`)
  console.log(`slugify.js:\n${readFileSync(join(dir, 'slugify.js'), 'utf8')}`)
}
finally {
  await agent.destroy()
  rmSync(dir, { recursive: true, force: true })
}

/** Writes a wrong implementation, then fixes it once the failure shows up in its input. */
function offlineModel(): Provider {
  const sawFailure = (request: StreamOptions) => request.messages.some(message =>
    message.role === 'user' && message.content.some(block => block.type === 'text' && block.text.includes('Validation failed')))
  return scriptedProvider([
    { text: 'Writing slugify.js.', toolCalls: [{ name: 'write_file', input: { path: 'slugify.js', content: 'export const slugify = text => text.toLowerCase()\n' } }] },
    {
      respond: request => sawFailure(request)
        ? { text: 'The test says the words are not joined; fixing that.', toolCalls: [{ name: 'write_file', input: { path: 'slugify.js', content: 'export const slugify = text => text.trim().toLowerCase().split(/\\s+/).join(\'-\')\n' } }] }
        : { text: 'Done.' },
    },
    { text: 'slugify.js passes test.js now.' },
  ], { defaultModel: 'scripted-mutation-validation' })
}
