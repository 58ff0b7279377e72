import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import tsupConfig from '../../tsup.config'

// Every public subpath is declared three times: the package's exports map, the
// build's entries and the reference docs' entry points. They must name the same set.

const root = fileURLToPath(new URL('../..', import.meta.url))
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, { types: string, default: string } | string> }
const typedoc = JSON.parse(readFileSync(`${root}typedoc.json`, 'utf8')) as { entryPoints: string[] }
// The config is a function of the command line's options (the post-build step reads its output directory).
const config = typeof tsupConfig === 'function' ? await tsupConfig({}) : tsupConfig
const build = (Array.isArray(config) ? config[0] : config) as { entry: Record<string, string> }

/** Subpath → the build entry name its files come from (`./chat` → `chat`, `.` → `index`). */
const subpaths = Object.entries(manifest.exports)
  .filter(([key]) => key !== './package.json')
  .map(([key, target]) => {
    const file = typeof target === 'string' ? target : target.default
    return { key, entry: file.replace(/^\.\/dist\//, '').replace(/\.js$/, '') }
  })

describe('public entry points', () => {
  it('each subpath is built from a source entry, and each public source entry is a subpath', () => {
    const built = Object.keys(build.entry).filter(name => !name.startsWith('internal/') && !name.startsWith('bin/'))
    expect(subpaths.map(({ entry }) => entry).sort()).toEqual(built.sort())
  })

  it('each built subpath has a reference docs entry point', () => {
    const sources = subpaths.map(({ entry }) => build.entry[entry])
    expect([...typedoc.entryPoints].sort()).toEqual(sources.sort())
  })

  it('zidane/chat exports the chat helpers the root re-exports, as the same values', async () => {
    const chat = await import('../../src/chat')
    const rootEntry = await import('../../src')
    expect(Object.keys(chat).sort()).toEqual([
      'AgentPluginError',
      'CHAT_BEHAVIOR',
      'CHAT_MAX_IMAGE_EDGE',
      'CHAT_MEDIA_BUDGET',
      'CHAT_PERSIST_EXCLUDE_TOOLS',
      'CHAT_PERSIST_THRESHOLD',
      'DEFAULT_BUDGET_EXCLUDE_TOOLS',
      'HEADLESS_BEHAVIOR',
      'MAX_PLUGIN_SERVERS',
      'PLUGIN_FILE_MAX_BYTES',
      'PLUGIN_MCP_SCHEMA_1_0',
      'PLUGIN_SCHEMA_1_0',
      'chatPersistDir',
      'chatProfiles',
      'chatTasksDir',
      'loadAgentPlugin',
      'resolveChatProfile',
      'runHeadless',
      'shouldAutoCompact',
    ])
    expect(chat.DEFAULT_BUDGET_EXCLUDE_TOOLS).toBe(rootEntry.DEFAULT_BUDGET_EXCLUDE_TOOLS)
    expect(chat.shouldAutoCompact).toBe(rootEntry.shouldAutoCompact)
    expect(chat.shouldAutoCompact({ input: 900 }, 1000, true)).toBe(true)
  })

  it('zidane/skills exports the loaders and the error zidane/errors has', async () => {
    const skills = await import('../../src/skills')
    const errors = await import('../../src/errors')
    expect(Object.keys(skills)).toEqual(expect.arrayContaining(['loadSkills', 'parseSkill', 'SkillValidationError', 'buildSkillCatalog', 'searchSkills', 'readSkillResource']))
    expect(skills.SkillValidationError).toBe(errors.SkillValidationError)
    expect(skills.parseSkill('---\nname: a\ndescription: b\n---\nbody').name).toBe('a')
  })

  it('zidane/durable exports the runtimes, the effects adapter, the Restate start runner and the typed errors, the same values as their home entries', async () => {
    const durable = await import('../../src/durable')
    const errors = await import('../../src/errors')
    const tools = await import('../../src/tool-state')
    expect(Object.keys(durable).sort()).toEqual(['DEFAULT_MAX_ENTRY_BYTES', 'DurablePayloadTooLargeError', 'RestateClockError', 'RestateInputError', 'SessionLeaseError', 'checkpointRuntime', 'durableEffects', 'restateAgent', 'restateRuntime', 'stagedToolState'])
    expect(durable.DurablePayloadTooLargeError).toBe(errors.DurablePayloadTooLargeError)
    expect(durable.SessionLeaseError).toBe(errors.SessionLeaseError)
    expect(durable.stagedToolState).toBe(tools.stagedToolState)
    expect(durable.DEFAULT_MAX_ENTRY_BYTES).toBe(4 * 1024 * 1024)
  })
})
