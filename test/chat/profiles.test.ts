/**
 * The built-in chat profiles through the public API: each holds exactly the
 * settings the spec gives chat profiles, and each setting changes what a run
 * does when the profile is run (`agent.run({ profile })`), so dropping one
 * fails here. The host-resolved knobs land where the spec's chat layer puts
 * them, per session.
 */

import type { AgentBehavior, PromptPart, SessionContentBlock } from '../../src'
import type { ChatProfile } from '../../src/chat'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent, definePolicy } from '../../src'
import { CHAT_BEHAVIOR, chatProfiles, DEFAULT_BUDGET_EXCLUDE_TOOLS, resolveChatProfile } from '../../src/chat'
import { createProcessContext } from '../../src/contexts'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { budgetScenarios } from '../policies/knobs/scenarios/budgets'
import { compactionScenarios } from '../policies/knobs/scenarios/compaction'
import { mediaSeen, pngBase64 } from '../policies/knobs/scenarios/media'
import { repeatScenarios } from '../policies/knobs/scenarios/repeat'

const dot: PromptPart = { type: 'image', data: pngBase64(1, 1), mediaType: 'image/png' }
const fresh = (label: string) => mkdtempSync(join(tmpdir(), `zidane-chat-${label}-`))
const profiles = Object.values(chatProfiles)

/** Run `profile` (its tools) in `cwd` on scripted turns; returns the provider, the tool results and the session. */
async function runProfile(profile: ChatProfile, cwd: string, turns: Parameters<typeof scriptedProvider>[0], prompt: string | PromptPart[] = 'go') {
  const provider = scriptedProvider(turns)
  const session = await createSession({ id: 'sess-1' })
  const results: string[] = []
  const agent = createAgent({
    provider,
    session,
    execution: createProcessContext({ cwd }),
    hooks: { 'tool:after': ctx => void results.push(String(ctx.result)) },
  })
  const stats = await agent.run({ prompt, profile })
  await agent.destroy()
  return { provider, results, stats }
}

describe('chatProfiles', () => {
  it('are build and plan, each with exactly the chat settings of the spec', () => {
    expect(Object.keys(chatProfiles)).toEqual(['build', 'plan'])
    for (const profile of profiles) {
      expect(profile.behavior).toBe(CHAT_BEHAVIOR)
      expect(profile.behavior).toEqual({
        autoCompact: true,
        repeatGuard: {},
        persistThreshold: 8192,
        persistExcludeTools: ['read_file', 'skills_use', 'tool_search', 'present_plan', 'ask_user'],
        maxImageEdge: 2000,
        mediaBudget: { maxItems: 80, maxBytes: 20 * 1024 * 1024 },
        elideStaleReads: false,
      })
      expect(Object.isFrozen(profile) && Object.isFrozen(profile.behavior)).toBe(true)
    }
    expect(DEFAULT_BUDGET_EXCLUDE_TOOLS).toEqual(['tool_search', 'skills_use', 'skills_read'])
  })

  it('build offers the shell and the file tools; plan only the tools that read', async () => {
    const dir = fresh('tools')
    const build = await runProfile(chatProfiles.build, dir, [{ text: 'ok' }])
    const plan = await runProfile(chatProfiles.plan, dir, [{ text: 'ok' }])
    expect(build.provider.requests[0].tools.map(tool => tool.name).sort()).toEqual(['edit', 'glob', 'grep', 'list_files', 'multi_edit', 'read_file', 'shell', 'write_file'])
    expect(plan.provider.requests[0].tools.map(tool => tool.name).sort()).toEqual(['glob', 'grep', 'list_files', 'read_file'])
    expect(plan.provider.requests[0].system).toContain('change nothing')
  })

  it('autoCompact: on, the profile\'s value summarizes once a turn crosses the window', async () => {
    const scenario = compactionScenarios.autoCompact
    expect(await scenario.outcome({ autoCompact: CHAT_BEHAVIOR.autoCompact })).toEqual(scenario.set)
    expect(await scenario.outcome({})).toEqual(scenario.unset)
  })

  it('repeatGuard: the profile\'s value blocks the fourth identical shell call', async () => {
    const scenario = repeatScenarios.repeatGuard
    expect(await scenario.outcome({ repeatGuard: CHAT_BEHAVIOR.repeatGuard })).toEqual(scenario.set)
  })

  it('elideStaleReads: the profile turns an agent\'s stale-read stubs off for its runs', async () => {
    const scenario = budgetScenarios.elideStaleReads
    const agentLevel: AgentBehavior = { elideStaleReads: 'stub' }
    expect(await scenario.outcome(agentLevel)).toBe(true)
    // The profile layer over the agent's knob, as the run plan merges them.
    expect(await scenario.outcome({ ...agentLevel, elideStaleReads: CHAT_BEHAVIOR.elideStaleReads })).toBe(false)
  })

  it.each(profiles.map(profile => [profile.name, profile] as const))('%s: maxImageEdge shrinks a 2400 px prompt image to 2000 px; mediaBudget ages media out past 80 items', async (_name, profile) => {
    const dir = fresh('media')
    const wide: PromptPart[] = [{ type: 'text', text: 'look' }, { type: 'image', data: pngBase64(2400, 12), mediaType: 'image/png' }]
    const shrunk = await runProfile(profile, dir, [{ text: 'seen' }], wide)
    expect(mediaSeen(shrunk.provider.requests[0].messages)).toEqual(['2000x10'])

    const many: PromptPart[] = [{ type: 'text', text: 'look' }, ...Array.from<PromptPart>({ length: 81 }).fill(dot)]
    const seen = mediaSeen((await runProfile(profile, dir, [{ text: 'seen' }], many)).provider.requests[0].messages)
    const markers = seen.filter(item => item === 'marker').length
    expect(seen[0]).toBe('marker')
    expect(seen.at(-1)).toBe('1x1')
    expect(markers).toBeGreaterThan(0)
    expect(markers).toBeLessThan(81)
    // Without the profile the same prompt keeps every image inline.
    const provider = scriptedProvider([{ text: 'seen' }])
    await createAgent({ provider }).run({ prompt: many })
    expect(mediaSeen(provider.requests[0].messages)).not.toContain('marker')
  })
})

describe('resolveChatProfile', () => {
  it('puts persistDir and tasksDir under the data folder per session and passes the model\'s window on', async () => {
    const dataDir = fresh('data')
    const resolved = resolveChatProfile(chatProfiles.build, { dataDir, sessionId: 'sess-1', contextWindow: 64_000 })
    expect(resolved.behavior).toEqual({
      ...CHAT_BEHAVIOR,
      persistDir: join(dataDir, 'tool-results', 'sess-1'),
      tasksDir: join(dataDir, 'sessions', 'sess-1', 'tasks'),
      contextWindow: 64_000,
    })
    expect(resolved.tools).toBe(chatProfiles.build.tools)
    expect(resolveChatProfile(chatProfiles.build, { dataDir, sessionId: 'sess-2' }).behavior.persistDir).toBe(join(dataDir, 'tool-results', 'sess-2'))
    expect('contextWindow' in resolveChatProfile(chatProfiles.build, { dataDir, sessionId: 'sess-2' }).behavior).toBe(false)

    let window: number | undefined
    const probe = definePolicy({
      name: 'window-probe',
      enabled: (_knobs, run) => {
        window = run.contextWindow
        return false
      },
    })
    const provider = scriptedProvider([{ text: 'hi' }], { contextWindow: 200_000 })
    await createAgent({ provider, policies: [probe] }).run({ prompt: 'go', profile: resolved })
    expect(window).toBe(64_000)
  })

  it('persists a shell result over 8192 bytes into the session\'s folder; a smaller one and read_file stay inline', async () => {
    const dataDir = fresh('persist')
    const cwd = fresh('cwd')
    writeFileSync(join(cwd, 'big.txt'), 'r'.repeat(20_000))
    const profile = resolveChatProfile(chatProfiles.build, { dataDir, sessionId: 'sess-1' })
    const { results, provider } = await runProfile(profile, cwd, [
      { toolCalls: [{ id: 'call_big', name: 'shell', input: { command: 'node -e "process.stdout.write(\'b\'.repeat(9000))"' } }] },
      { toolCalls: [{ id: 'call_small', name: 'shell', input: { command: 'node -e "process.stdout.write(\'s\'.repeat(8000))"' } }] },
      { toolCalls: [{ id: 'call_read', name: 'read_file', input: { path: 'big.txt' } }] },
      { text: 'done' },
    ])
    const folder = join(dataDir, 'tool-results', 'sess-1')
    expect(results[0]).toMatch(/^<persisted-output>/)
    expect(results[0]).toContain(folder)
    expect(results[1]).not.toMatch(/^<persisted-output>/)
    expect(results[1]).toContain('s'.repeat(8000))
    expect(results[2]).not.toMatch(/^<persisted-output>/)
    const files = readdirSync(folder)
    expect(files).toHaveLength(1)
    expect(readFileSync(join(folder, files[0]), 'utf8')).toContain('b'.repeat(9000))
    const sent = (provider.requests[1].messages.at(-1)!.content[0] as Extract<SessionContentBlock, { type: 'tool_result' }>).output
    expect(String(sent)).toMatch(/^<persisted-output>/)
  }, 30_000)

  it('gives the shell\'s background mode the session\'s tasks folder', async () => {
    const dataDir = fresh('tasks')
    const profile = resolveChatProfile(chatProfiles.build, { dataDir, sessionId: 'sess-1' })
    const { results, provider } = await runProfile(profile, fresh('cwd'), [
      { toolCalls: [{ name: 'shell', input: { command: 'echo hi', run_in_background: true } }] },
      { text: 'started' },
    ])
    const tasks = join(dataDir, 'sessions', 'sess-1', 'tasks')
    expect(provider.requests[0].tools.find(tool => tool.name === 'shell')!.inputSchema).toHaveProperty('properties.run_in_background')
    expect(results[0]).toContain(tasks)
    expect(existsSync(tasks)).toBe(true)
    // Without the host's folder, background mode is not offered at all.
    const bare = await runProfile(chatProfiles.build, fresh('cwd'), [{ text: 'ok' }])
    expect(bare.provider.requests[0].tools.find(tool => tool.name === 'shell')!.inputSchema).not.toHaveProperty('properties.run_in_background')
  })

  it('refuses a relative data folder, a session id that is not one path segment, and a bad window', () => {
    const dataDir = fresh('bad')
    expect(() => resolveChatProfile(chatProfiles.plan, { dataDir: 'relative/dir', sessionId: 's' })).toThrow(TypeError)
    for (const sessionId of ['', '.', '..', '../x', 'a/b', 'a\\b', 'a\0b'])
      expect(() => resolveChatProfile(chatProfiles.plan, { dataDir, sessionId }), sessionId).toThrow(TypeError)
    for (const contextWindow of [0, -1, 1.5, Number.NaN])
      expect(() => resolveChatProfile(chatProfiles.plan, { dataDir, sessionId: 's', contextWindow })).toThrow(RangeError)
  })
})
