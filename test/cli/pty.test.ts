/**
 * What the `zidane` process shows on a terminal, and Ctrl-C, in a real
 * pseudo-terminal (`script` from util-linux gives the process one).
 */

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { fakeModelServers } from './fake-user'
import { cleanEnv, freshDir, HAS_SCRIPT, runCli, runInPty } from './process'

vi.setConfig({ testTimeout: 90_000 })

const serve = fakeModelServers()

const ESC = '\x1B'

describe.skipIf(!HAS_SCRIPT)('zidane on a terminal', () => {
  it('colours its status lines and shows control characters from the model and tools instead of sending them', async () => {
    const server = await serve([
      { text: `Title ${ESC}]0;owned\x07 clear ${ESC}[2J bell\x07 c1 \u009B31m rtl \u202Eevil`, toolCalls: [{ name: 'read_file', input: { path: `nope${ESC}[31m.txt` } }] },
      { text: 'end' },
    ])
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home') })
    const run = runInPty(['--base-url', server.url, 'go'], { env, cwd: freshDir('cwd') })
    expect(await run.exit).toBe(0)
    const shown = run.output()
    expect(shown).toContain('Title ^[]0;owned^G clear ^[[2J bell^G c1 <U+009B>31m rtl <U+202E>evil')
    expect(shown).not.toContain(`${ESC}]0;owned`)
    expect(shown).not.toContain(`${ESC}[2J`)
    expect(shown).not.toContain('\u009B')
    expect(shown).not.toContain('\u202E')
    // The tool's input on the status line and its error are made safe too; the status marks are coloured.
    expect(shown).toContain(`${ESC}[2mnope^[[31m.txt${ESC}[22m`)
    expect(shown).toContain(`${ESC}[36m→${ESC}[39m`)
    expect(shown).toContain(`${ESC}[31m✗${ESC}[39m read_file`)
    expect(shown).toContain('File not found: nope^[[31m.txt')
    expect(shown).not.toContain(`${ESC}[31m.txt`)
  })

  it('nO_COLOR keeps the terminal free of colours, and the text still safe', async () => {
    const server = await serve([{ text: `a${ESC}[31mb`, toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'c' }])
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home'), NO_COLOR: '1' })
    const run = runInPty(['--base-url', server.url, 'go'], { env, cwd: freshDir('cwd') })
    expect(await run.exit).toBe(0)
    expect(run.output()).toContain('a^[[31mb')
    expect(run.output()).not.toContain(ESC)
  })

  it('ctrl-C stops the run with its tool call answered (exit 130), and --resume continues the session', async () => {
    const server = await serve([
      { text: 'Waiting.', toolCalls: [{ id: 'toolu_wait', name: 'shell', input: { command: 'sleep 30' } }] },
      ({ toolResults }) => ({ text: `Resumed after: ${toolResults[0].split('\n')[0]}` }),
    ])
    const home = freshDir('home')
    const cwd = freshDir('cwd')
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: home })
    // --yes on a terminal too: the command runs without a question, so Ctrl-C lands while it runs.
    const run = runInPty(['--base-url', server.url, '--yes', 'wait for it'], { env, cwd })
    await run.waitFor('sleep 30')
    const started = Date.now()
    run.type('\x03')
    expect(await run.exit).toBe(130)
    // The abort killed the command rather than waiting for it.
    expect(Date.now() - started).toBeLessThan(20_000)
    const shown = run.output()
    expect(shown).toContain('Stopping… (Ctrl-C again to quit at once)')
    expect(shown).toMatch(/✗.*shell.*: Aborted/)
    expect(shown).toContain('aborted · 1 turn')
    const id = /Continue with: zidane --session=([\w-]+) --resume/.exec(shown)?.[1]
    expect(id).toBeDefined()

    const resumed = await runCli(['--base-url', server.url, '--session', id!, '--resume'], { env, cwd })
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toMatch(/^Resumed after: Aborted/)
    // The interrupted call is answered in the conversation the model gets back: every call paired.
    const messages = server.requests[1].body.messages as { role: string, content: { type: string, id?: string, tool_use_id?: string }[] }[]
    const calls = messages.flatMap(message => Array.isArray(message.content) ? message.content : []).filter(block => block.type === 'tool_use').map(block => block.id)
    const results = messages.flatMap(message => Array.isArray(message.content) ? message.content : []).filter(block => block.type === 'tool_result').map(block => block.tool_use_id)
    expect(calls).toEqual(['toolu_wait'])
    expect(results).toEqual(['toolu_wait'])
  })

  it('asks before a tool that needs approval: y runs it, "n <reason>" refuses it and the model reads the reason', async () => {
    const server = await serve([
      { toolCalls: [{ id: 'toolu_yes', name: 'write_file', input: { path: 'yes.txt', content: 'written' } }] },
      { toolCalls: [{ id: 'toolu_no', name: 'write_file', input: { path: 'no.txt', content: 'refused' } }] },
      ({ toolResults }) => ({ text: `Model read: ${toolResults[0]}` }),
    ])
    const cwd = freshDir('cwd')
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home'), NO_COLOR: '1' })
    const run = runInPty(['--base-url', server.url, 'write two files'], { env, cwd })
    await run.waitFor('Allow write_file:\r\n    yes.txt\r\n[y/N]')
    // Nothing runs before the answer.
    expect(existsSync(join(cwd, 'yes.txt'))).toBe(false)
    run.type('y\r')
    await run.waitFor('Allow write_file:\r\n    no.txt\r\n[y/N]')
    expect(readFileSync(join(cwd, 'yes.txt'), 'utf8')).toBe('written')
    run.type('n some reason\r')
    expect(await run.exit).toBe(0)
    expect(existsSync(join(cwd, 'no.txt'))).toBe(false)
    expect(server.requests[1].toolResults[0]).not.toContain('Blocked')
    expect(server.requests[2].toolResults[0]).toContain('Blocked: the call was denied: some reason')
    expect(run.output()).toContain('Model read: Blocked: the call was denied: some reason')
  })

  it('ctrl-C at the question refuses the call as interrupted and stops the run (exit 130); --resume gives the model that answer', async () => {
    const server = await serve([
      { toolCalls: [{ id: 'toolu_ask', name: 'shell', input: { command: 'echo hi > ran.txt' } }, { id: 'toolu_next', name: 'shell', input: { command: 'echo hi > next.txt' } }] },
      ({ toolResults }) => ({ text: `After: ${toolResults[0]}` }),
    ])
    const cwd = freshDir('cwd')
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home'), NO_COLOR: '1' })
    const run = runInPty(['--base-url', server.url, '--session', 'ask-1', 'run it'], { env, cwd })
    await run.waitFor('[y/N]')
    run.type('\x03')
    expect(await run.exit).toBe(130)
    expect(run.output()).toContain('Stopping… (Ctrl-C again to quit at once)')
    expect(run.output()).toContain('Continue with: zidane --session=ask-1 --resume')
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false)
    const resumed = await runCli(['--base-url', server.url, '--session', 'ask-1', '--resume'], { env, cwd })
    expect(resumed.code).toBe(0)
    expect(server.requests[1].toolResults[0]).toContain('Blocked: the call was denied: The user interrupted the run.')
    // The turn's other gated call is not asked about after the Ctrl-C, and does not run.
    expect(run.output().match(/Allow shell/g)).toHaveLength(1)
    expect(server.requests[1].toolResults[1]).toMatch(/The user interrupted the run\.|Aborted/)
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false)
    expect(existsSync(join(cwd, 'next.txt'))).toBe(false)
  })

  it('a run suspended for approval in a pipe asks again when resumed on a terminal', async () => {
    const server = await serve([
      { toolCalls: [{ id: 'toolu_later', name: 'write_file', input: { path: 'later.txt', content: 'approved later' } }] },
      { text: 'Written.' },
    ])
    const cwd = freshDir('cwd')
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home'), NO_COLOR: '1' })
    const piped = await runCli(['--base-url', server.url, '--session', 'later-1', 'write it'], { env, cwd })
    expect(piped.code).toBe(6)
    const run = runInPty(['--base-url', server.url, '--session', 'later-1', '--resume'], { env, cwd })
    await run.waitFor('Allow write_file:\r\n    later.txt\r\n[y/N]')
    run.type('y\r')
    expect(await run.exit).toBe(0)
    expect(readFileSync(join(cwd, 'later.txt'), 'utf8')).toBe('approved later')
    expect(run.output()).toContain('Written.')
  })
})
