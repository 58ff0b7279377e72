import type { SkillActivateContext, SkillDeactivateContext, SkillOverflowContext } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import type { ToolDef } from '../../src/tools'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent, DEFAULT_BUDGET_EXCLUDE_TOOLS } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { LIBRARY, libraryCopy, scratch } from './support'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  vi.restoreAllMocks()
})

/** A tool that answers with its name and input, under one of the built-in tools' names. */
function probe(name: string): ToolDef {
  return { spec: { name, description: name, inputSchema: { type: 'object' } }, execute: input => `${name} ran ${JSON.stringify(input)}` }
}
const tools = { read_file: probe('read_file'), grep: probe('grep'), shell: probe('shell') }

let ids = 0
function call(name: string, input: Record<string, unknown>): ScriptedTurn {
  return { toolCalls: [{ name, input, id: `c${++ids}` }] }
}

/** Tool results of every request, in order, as text. */
function results(provider: ReturnType<typeof scriptedProvider>): string[] {
  const last = provider.requests.at(-1)!.messages
  return last.flatMap(message => (message.content as { type: string, output?: unknown, isError?: boolean }[])
    .filter(block => block.type === 'tool_result')
    .map(block => `${block.isError ? 'ERROR ' : ''}${String(block.output)}`))
}

describe('the skills catalog', () => {
  it('is the frozen prompt section `skills`, sorted by name, byte-identical on every turn, after an activation, and in the next run', async () => {
    const provider = scriptedProvider([call('skills_use', { name: 'release-notes' }), { text: 'done' }, { text: 'again' }])
    const agent = createAgent({ provider, tools, skills: [{ name: 'zz-inline', description: 'An inline skill listed last.', body: 'Inline body.' }, LIBRARY] })
    await agent.run({ prompt: 'write the notes' })
    await agent.run({ prompt: 'and again' })
    const systems = provider.requests.map(request => request.system)
    expect(new Set(systems).size).toBe(1)
    const section = systems[0].slice(systems[0].indexOf('# Skills'))
    const listed = section.split('\n').filter(line => line.startsWith('- ')).map(line => line.slice(2, line.indexOf(':')))
    expect(listed).toEqual(['pdf-forms', 'release-notes', 'sql-review', 'zz-inline'])
    expect(section).toContain('- pdf-forms: Fill in, inspect and flatten PDF forms. Use when the user mentions a PDF form')
    expect(agent.getContextBreakdown()).toBeDefined()
  })

  it('over its budget: skills by name, then counted; overflow reported; a left-out skill found by query and activated as a search', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `skill-${String(i).padStart(2, '0')}`,
      description: i === 37 ? 'Convert temperature readings between celsius and fahrenheit scales.' : `Handles chores of kind ${i} for the team, in detail, whenever asked about kind ${i}.`,
      body: `Body ${i}.`,
    }))
    vi.spyOn(process, 'emitWarning').mockImplementation((() => {}) as typeof process.emitWarning)
    const overflow: SkillOverflowContext[] = []
    const activations: SkillActivateContext[] = []
    const provider = scriptedProvider([
      call('skills_use', { query: 'convert celsius to fahrenheit' }),
      call('skills_use', { name: 'skill-37', reason: 'it converts temperatures' }),
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      skills: { sources: many, catalogMaxChars: 1500 },
      hooks: { 'skills:overflow': ctx => void overflow.push(ctx), 'skills:activate': ctx => void activations.push(ctx) },
    })
    await agent.run({ prompt: 'temperatures' })
    const system = provider.requests[0].system
    expect(system.slice(system.indexOf('# Skills')).length).toBeLessThanOrEqual(1500)
    expect(overflow).toHaveLength(1)
    const { described, named, unlisted } = overflow[0]
    expect([...described, ...named, ...unlisted]).toEqual(many.map(skill => skill.name))
    expect(described.length).toBeGreaterThan(0)
    expect(unlisted).toContain('skill-37')
    expect(system).toContain(`40 skills in all; ${described.length} are described here. ${unlisted.length} more are not listed.`)
    expect(system).toContain('skills_use { query: "…" }')
    const [found, used] = results(provider)
    expect(found.split('\n')[1]).toBe('- skill-37: Convert temperature readings between celsius and fahrenheit scales.')
    expect(used).toContain('Body 37.')
    expect(activations).toEqual([expect.objectContaining({ name: 'skill-37', reason: 'search', rationale: 'it converts temperatures' })])
  })
})

describe('skills_use and skills_read', () => {
  it('returns the body, the directory and the file list; activation fires skills:activate with its reason; files are read on demand', async () => {
    const activations: SkillActivateContext[] = []
    const provider = scriptedProvider([
      call('skills_use', { name: 'pdf-forms', reason: 'the user has a fillable PDF' }),
      call('skills_read', { name: 'pdf-forms', path: 'references/field-types.md' }),
      call('skills_use', { name: 'pdf-forms' }),
      call('skills_use', { name: 'no-such-skill' }),
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools, skills: [LIBRARY], hooks: { 'skills:activate': ctx => void activations.push(ctx) } })
    await agent.run({ prompt: 'fill my form' })
    const [body, file, again, unknown] = results(provider)
    expect(body).toContain('Skill "pdf-forms" is active.')
    expect(body).toContain(`Its directory: ${join(LIBRARY, 'pdf-forms')}`)
    expect(body).toContain('## Step 1: find out what kind of form it is')
    expect(body).not.toContain('allowed-tools:')
    expect(body).toContain('- scripts/list_fields.py')
    expect(file).toContain('| Checkbox | the "on" export value | see `states` |')
    expect(again).toBe(body)
    expect(unknown).toMatch(/^ERROR Error: No skill is named "no-such-skill"/)
    // One activation for two uses.
    expect(activations).toEqual([expect.objectContaining({ name: 'pdf-forms', reason: 'catalog', rationale: 'the user has a fillable PDF', allowedTools: ['Bash(python3:*)', 'Read', 'Write'], callId: expect.any(String) })])
  })

  it('refuses absolute paths, `..`, links out of the skill and directories', async () => {
    const { dir, cleanup } = scratch()
    cleanups.push(cleanup)
    const copy = libraryCopy(dir)
    writeFileSync(join(dir, 'secret.txt'), 'top secret')
    symlinkSync(join(dir, 'secret.txt'), join(copy, 'sql-review', 'references', 'leak.md'))
    const attempts = ['/etc/passwd', '../pdf-forms/SKILL.md', 'references/../../secret.txt', 'references/leak.md', 'references', 'references/indexes.md']
    const provider = scriptedProvider([...attempts.map(path => call('skills_read', { name: 'sql-review', path })), { text: 'done' }])
    await createAgent({ provider, skills: [copy] }).run({ prompt: 'read' })
    const [absolute, parent, nested, link, folder, fine] = results(provider)
    expect(absolute).toBe('ERROR Error: absolute paths are refused; give a path relative to the skill')
    expect(parent).toBe('ERROR Error: `..` is refused; resources stay inside the skill')
    expect(nested).toBe(parent)
    expect(link).toBe('ERROR Error: "references/leak.md" is a link that leaves the skill; refused')
    expect(folder).toMatch(/^ERROR Error: "references" is a directory/)
    expect(fine).toContain('Put equality columns first')
    expect(results(provider).join('\n')).not.toContain('top secret')
  })
})

describe('the allowed-tools gate', () => {
  it('while a skill is active, only its tools (and the skills tools) run; the refusal names the tool and the skill', async () => {
    const provider = scriptedProvider([
      call('grep', { pattern: 'before' }),
      call('skills_use', { name: 'pdf-forms' }),
      call('grep', { pattern: 'x' }),
      call('read_file', { path: 'form.pdf' }),
      call('shell', { command: 'python3 scripts/list_fields.py in.pdf' }),
      call('shell', { command: 'rm -rf /' }),
      call('skills_read', { name: 'pdf-forms', path: 'references/flat-forms.md' }),
      { text: 'done' },
    ])
    await createAgent({ provider, tools, skills: [LIBRARY] }).run({ prompt: 'go' })
    const [before, , grep, read, python, rm, reference] = results(provider)
    expect(before).toBe('grep ran {"pattern":"before"}')
    expect(grep).toBe('ERROR Blocked: "grep" is not in the allowed-tools of skill "pdf-forms"')
    expect(read).toBe('read_file ran {"path":"form.pdf"}')
    expect(python).toContain('shell ran')
    expect(rm).toBe('ERROR Blocked: "shell" is not in the allowed-tools of skill "pdf-forms"')
    expect(reference).toContain('Flat forms')
  })

  it('two restricting skills allow the union of their tools', async () => {
    const provider = scriptedProvider([
      call('skills_use', { name: 'pdf-forms' }),
      call('skills_use', { name: 'sql-review' }),
      call('grep', { pattern: 'x' }),
      call('shell', { command: 'psql --version' }),
      call('shell', { command: 'psql -c "drop table users"' }),
      { text: 'done' },
    ])
    await createAgent({ provider, tools, skills: [LIBRARY] }).run({ prompt: 'go' })
    const [, , grep, version, drop] = results(provider)
    expect(grep).toContain('grep ran')
    expect(version).toContain('shell ran')
    expect(drop).toBe('ERROR Blocked: "shell" is not in the allowed-tools of skills "pdf-forms", "sql-review"')
  })

  it('the active skills and their gate survive a pause; skills:deactivate fires once, when the continued run ends', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const deactivations: SkillDeactivateContext[] = []
    const pausing: ToolDef = { spec: { name: 'read_file', description: 'r', inputSchema: { type: 'object' } }, execute: () => {
      pause.abort()
      return 'read'
    } }
    const hooks = { 'skills:deactivate': (ctx: SkillDeactivateContext) => void deactivations.push(ctx) }
    const first = scriptedProvider([call('skills_use', { name: 'pdf-forms' }), call('read_file', { path: 'a' })])
    const paused = await createAgent({ provider: first, tools: { ...tools, read_file: pausing }, session, skills: [LIBRARY], hooks }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(paused.stopReason).toBe('paused')
    expect(deactivations).toEqual([])
    expect(session.runs.at(-1)!.state?.policies.skills).toEqual({ active: [{ name: 'pdf-forms', callId: expect.any(String) }] })

    const next = scriptedProvider([call('grep', { pattern: 'x' }), { text: 'done' }])
    const continued = await createAgent({ provider: next, tools, session, skills: [LIBRARY], hooks }).run()
    expect(continued.stopReason).toBe('completed')
    expect(results(next).at(-1)).toBe('ERROR Blocked: "grep" is not in the allowed-tools of skill "pdf-forms"')
    expect(deactivations).toEqual([expect.objectContaining({ name: 'pdf-forms', stopReason: 'completed' })])
  })
})

describe('skills:deactivate at run end', () => {
  it('is awaited before run() returns, for an aborted run too, and a handler that never settles is cut at hookTimeoutMs', async () => {
    const order: string[] = []
    const slow = createAgent({
      provider: scriptedProvider([call('skills_use', { name: 'release-notes' }), { text: 'done' }]),
      skills: [LIBRARY],
      hooks: { 'skills:deactivate': async ({ name, stopReason }) => {
        await new Promise(resolve => setTimeout(resolve, 30))
        order.push(`deactivated ${name} ${stopReason}`)
      } },
    })
    await slow.run({ prompt: 'go' })
    order.push('returned')
    expect(order).toEqual(['deactivated release-notes completed', 'returned'])

    const aborted: SkillDeactivateContext[] = []
    const stopping = new AbortController()
    const stopper: ToolDef = { spec: { name: 'stop', description: 'stop', inputSchema: { type: 'object' } }, execute: () => {
      stopping.abort()
      return 'stopping'
    } }
    const abortable = createAgent({
      provider: scriptedProvider([call('skills_use', { name: 'sql-review' }), call('stop', {}), { text: 'never' }]),
      tools: { stop: stopper, read_file: probe('read_file') },
      skills: [{ name: 'sql-review', description: 'x', body: 'y', allowedTools: ['stop'] }],
      hooks: { 'skills:deactivate': ctx => void aborted.push(ctx) },
    })
    expect((await abortable.run({ prompt: 'go', signal: stopping.signal })).stopReason).toBe('aborted')
    expect(aborted).toEqual([expect.objectContaining({ name: 'sql-review', stopReason: 'aborted' })])

    // An agent without skills still takes handlers for the skills events.
    expect(() => createAgent({ provider: scriptedProvider([]), hooks: { 'skills:activate': () => {} } })).not.toThrow()

    const hung = createAgent({
      provider: scriptedProvider([call('skills_use', { name: 'release-notes' }), { text: 'done' }]),
      skills: [LIBRARY],
      behavior: { hookTimeoutMs: 50 },
      hooks: { 'skills:deactivate': () => new Promise<void>(() => {}) },
    })
    expect((await hung.run({ prompt: 'go' })).stopReason).toBe('completed')
  })
})

describe('the output budget', () => {
  it('skills tools count against toolOutputBudget unless excluded, as DEFAULT_BUDGET_EXCLUDE_TOOLS does', async () => {
    const exceeded = async (exclude?: readonly string[]) => {
      const fired: unknown[] = []
      await createAgent({
        provider: scriptedProvider([call('skills_use', { name: 'pdf-forms' }), { text: 'done' }]),
        skills: [LIBRARY],
        behavior: { toolOutputBudget: 200, ...(exclude ? { toolOutputBudgetExcludeTools: exclude } : {}) },
        hooks: { 'budget:exceeded': ctx => void fired.push(ctx) },
      }).run({ prompt: 'go' })
      return fired.length
    }
    expect(await exceeded()).toBe(1)
    expect(await exceeded(DEFAULT_BUDGET_EXCLUDE_TOOLS)).toBe(0)
  })
})
