/**
 * The parts of the `zidane` command at the function level: what only a
 * person at a keyboard can drive (the approval question, a second Ctrl-C),
 * the exit code table, and the command lines the docs show.
 */

import type { AgentStreamEvent, StopReason } from '../../src'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chatProfiles } from '../../src/chat/profiles'
import { askApproval } from '../../src/cli/approval'
import { approvalMode, approvalsFor, createApprovalResponder } from '../../src/cli/approvals'
import { parseCliArgs, UsageError } from '../../src/cli/args'
import { resolveDataDir } from '../../src/cli/data-dir'
import { EXIT_CODES, exitCodeForError, exitCodeForStop } from '../../src/cli/exit-codes'
import { handleInterrupts } from '../../src/cli/interrupt'
import { chooseProviderName } from '../../src/cli/provider-choice'
import { createRenderer } from '../../src/cli/render'
import { terminalSafe, terminalStyle } from '../../src/cli/terminal-text'
import { AgentAbortedError, AgentBudgetExceededError, AgentProviderError, ClassifiedError } from '../../src/errors'
import { root } from './process'

// eslint-disable-next-line no-control-regex -- the characters a terminal must never get raw
const RAW_CONTROL = /[\0-\x08\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/

describe('terminalSafe', () => {
  it('leaves no control character but newline and tab, keeps every other character, and changes safe text not at all', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      const safe = terminalSafe(text)
      expect(safe).not.toMatch(RAW_CONTROL)
      expect(safe.split('\n').length).toBe(text.split('\n').length)
      expect(safe.split('\t').length).toBe(text.split('\t').length)
      expect(terminalSafe(safe)).toBe(safe)
      if (!RAW_CONTROL.test(text))
        expect(safe).toBe(text)
    }), { numRuns: 500 })
    expect(terminalSafe('a\x1B[2Jb\rc\x00d\x7Fe\u0085f\u2067g')).toBe('a^[[2Jb^Mc^@d^?e<U+0085>f<U+2067>g')
  })

  it('is applied, and colours used, only on a terminal without NO_COLOR', () => {
    expect(terminalStyle(false, {}).safe('\x1B')).toBe('\x1B')
    expect(terminalStyle(false, {}).paint.red('x')).toBe('x')
    expect(terminalStyle(true, {}).safe('\x1B')).toBe('^[')
    expect(terminalStyle(true, {}).paint.red('x')).toBe('\x1B[31mx\x1B[39m')
    expect(terminalStyle(true, { NO_COLOR: '1' }).paint.red('x')).toBe('x')
    expect(terminalStyle(true, { NO_COLOR: '1' }).safe('\x1B')).toBe('^[')
  })
})

describe('exit codes', () => {
  it('give each stop reason its code and each error class its code', () => {
    const expected: Record<StopReason, number> = {
      'completed': 0,
      'max-turns': 3,
      'aborted': 130,
      'paused': 6,
      'suspended': 6,
      'pause-exhausted': 5,
      'length-exhausted': 5,
      'refusal-exhausted': 5,
      'length': 5,
      'content-filter': 5,
      'output-invalid': 5,
    }
    for (const [reason, code] of Object.entries(expected))
      expect(exitCodeForStop(reason as StopReason), reason).toBe(code)
    expect(exitCodeForError(new AgentBudgetExceededError('cost', 1, 2))).toBe(EXIT_CODES.budget)
    expect(exitCodeForError(new UsageError('x'))).toBe(EXIT_CODES.usage)
    expect(exitCodeForError(new AgentAbortedError())).toBe(EXIT_CODES.interrupted)
    expect(exitCodeForError(new AgentProviderError('down', { provider: 'p', code: 'server_error' } as never))).toBe(EXIT_CODES.error)
    expect(exitCodeForError('odd')).toBe(EXIT_CODES.error)
  })

  it('are the codes docs/cli.md lists', () => {
    const page = readFileSync(join(root, 'docs/cli.md'), 'utf8')
    const rows = Array.from(page.matchAll(/^\| (\d+) \| `(\w+)` \|/gm), match => [match[2], Number(match[1])])
    expect(Object.fromEntries(rows)).toEqual(EXIT_CODES)
  })
})

describe('command lines', () => {
  it('read the flags with their defaults, and refuse bad values with a UsageError', () => {
    expect(parseCliArgs(['fix', 'the', 'test'])).toMatchObject({ prompt: 'fix the test', profile: 'build', json: false, resume: false, yes: false })
    expect(parseCliArgs(['--yes', 'x'])).toMatchObject({ yes: true })
    expect(parseCliArgs(['-y', 'x'])).toMatchObject({ yes: true })
    expect(parseCliArgs(['--max-cost', '0.5', '--max-turns', '7', '--json', '--profile', 'plan', '--thinking', 'low', 'x'])).toMatchObject({ maxCostUsd: 0.5, maxTurns: 7, json: true, profile: 'plan', thinking: 'low' })
    for (const bad of [['--max-cost', '0'], ['--max-cost', '-1'], ['--max-turns', '1.5'], ['--context-window', 'lots'], ['--base-url', 'ftp://x'], ['--thinking', 'hard'], ['--model', ' '], ['--nope']])
      expect(() => parseCliArgs([...bad, 'go']), bad.join(' ')).toThrow(UsageError)
    expect(() => parseCliArgs(['x'.repeat(1024 * 1024 + 1)])).toThrow(/over 1048576 bytes/)
  })

  it('every `npx zidane` line of README.md and docs/cli.md parses', () => {
    const lines = ['README.md', 'docs/cli.md'].flatMap(page => readFileSync(join(root, page), 'utf8').split('\n').filter(line => /^(?:[\w=.-]+ )*npx zidane\b/.test(line)).map(line => ({ page, line })))
    expect(lines.length).toBeGreaterThan(8)
    for (const { page, line } of lines) {
      const words = Array.from(line.replace(/\s+#.*$/, '').replace(/^.*?npx zidane\s*/, '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g), match => match[1] ?? match[2] ?? match[3])
      expect(() => parseCliArgs(words), `${page}: ${line}`).not.toThrow()
    }
  })

  it('pick the provider from --provider, else the first key in the environment, else a compatible server for --base-url', () => {
    expect(chooseProviderName({}, { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' })).toBe('anthropic')
    expect(chooseProviderName({}, { OPENROUTER_API_KEY: 'r', OPENAI_API_KEY: 'o' })).toBe('openai')
    expect(chooseProviderName({}, { CEREBRAS_API_KEY: 'c' })).toBe('cerebras')
    expect(chooseProviderName({ provider: 'openrouter' }, { ANTHROPIC_API_KEY: 'a' })).toBe('openrouter')
    expect(chooseProviderName({ baseURL: 'http://127.0.0.1:1/v1' }, {})).toBe('openai-compat')
    expect(chooseProviderName({ baseURL: 'http://127.0.0.1:1' }, { ANTHROPIC_API_KEY: 'a' })).toBe('anthropic')
    expect(() => chooseProviderName({}, { ANTHROPIC_API_KEY: '' })).toThrow(UsageError)
  })

  it('keep the data in --data-dir, else $ZIDANE_HOME, else the user data folder', () => {
    expect(resolveDataDir('d', { ZIDANE_HOME: '/z' }, '/w', 'linux')).toBe('/w/d')
    expect(resolveDataDir(undefined, { ZIDANE_HOME: '/z' }, '/w', 'linux')).toBe('/z')
    expect(resolveDataDir(undefined, { XDG_DATA_HOME: '/x' }, '/w', 'linux')).toBe('/x/zidane')
    expect(resolveDataDir(undefined, { LOCALAPPDATA: 'C:\\L' }, '/w', 'win32')).toMatch(/^C:\\L.zidane$/)
  })
})

/** A terminal double: what the question printed, and a way to type answers. */
function keyboard(signal?: AbortSignal) {
  const input = new PassThrough()
  const output = new PassThrough()
  let shown = ''
  output.setEncoding('utf8').on('data', (chunk: string) => void (shown += chunk))
  const terminal = { input, output, style: terminalStyle(false, {}), ...(signal ? { signal } : {}) }
  return { terminal, input, shown: () => shown }
}

const question = { tool: 'shell', input: { command: 'rm -rf build\x1B[2J' } }

describe('askApproval', () => {
  it('approves on y or yes; anything else is a no, with a reason given inline or asked for', async () => {
    for (const [typed, answer] of [
      ['y\n', { approved: true }],
      ['YES\n', { approved: true }],
      ['n use the clean script\n', { approved: false, reason: 'use the clean script' }],
      ['no: not now\n', { approved: false, reason: 'not now' }],
      ['n\nkeep the build folder\n', { approved: false, reason: 'keep the build folder' }],
      ['\n\n', { approved: false }],
      ['maybe\n\n', { approved: false }],
    ] as const) {
      const { terminal, input, shown } = keyboard()
      const pending = askApproval(terminal, question)
      input.write(typed)
      expect(await pending, JSON.stringify(typed)).toEqual(answer)
      expect(shown()).toContain('Allow shell:\n    rm -rf build')
      expect(shown()).toContain('[y/N]')
    }
  })

  it('shows the call\'s input made safe on a terminal', async () => {
    const { input, shown } = keyboard()
    const output = Object.assign(new PassThrough(), { isTTY: false })
    let text = ''
    output.setEncoding('utf8').on('data', (chunk: string) => void (text += chunk))
    const pending = askApproval({ input, output, style: terminalStyle(true, { NO_COLOR: '1' }) }, question)
    input.write('y\n')
    await pending
    expect(shown()).toBe('')
    expect(text).toContain('rm -rf build^[[2J')
  })

  it('is a no when the input ends, and a no saying so when Ctrl-C interrupts the question', async () => {
    const ended = keyboard()
    const pending = askApproval(ended.terminal, question)
    ended.input.end()
    expect(await pending).toEqual({ approved: false })

    const controller = new AbortController()
    const interrupted = keyboard(controller.signal)
    const asked = askApproval(interrupted.terminal, question)
    controller.abort()
    expect(await asked).toEqual({ approved: false, reason: 'The user interrupted the run.' })
  })

  it('keeps at most 2000 characters of a reason', async () => {
    const { terminal, input } = keyboard()
    const pending = askApproval(terminal, question)
    input.write(`n ${'r'.repeat(5000)}\n`)
    const answer = await pending
    expect(answer.approved === false && answer.reason?.length).toBe(2000)
  })
})

describe('approvals of the command', () => {
  it('ask only with a person on both ends of a terminal and no --json; --yes approves; otherwise the run is suspended', () => {
    const tty = { json: false, stdinIsTTY: true, stderrIsTTY: true }
    expect(approvalMode({ ...tty, yes: false })).toBe('ask')
    expect(approvalMode({ ...tty, yes: true })).toBe('approve')
    expect(approvalMode({ ...tty, yes: false, json: true })).toBe('suspend')
    expect(approvalMode({ ...tty, yes: false, stdinIsTTY: false })).toBe('suspend')
    expect(approvalMode({ ...tty, yes: false, stderrIsTTY: false })).toBe('suspend')
    expect(approvalMode({ ...tty, yes: true, json: true, stdinIsTTY: false })).toBe('approve')
  })

  it('gate the build profile\'s shell and file writes and nothing of the plan profile', () => {
    expect(approvalsFor(chatProfiles.build.tools)).toEqual({ shell: true, write_file: true, edit: true, multi_edit: true })
    expect(approvalsFor(chatProfiles.plan.tools)).toEqual({})
  })
})

describe('createApprovalResponder', () => {
  /** An event whose first decision counts, as the run's does. */
  function approvalEvent(callId: string, decisions: string[]) {
    let decided = false
    const decide = (text: string) => {
      if (!decided)
        decisions.push(text)
      decided = true
    }
    return {
      type: 'tool-approval' as const,
      runId: 'r',
      depth: 0,
      turnId: 't',
      callId,
      name: 'shell',
      input: { command: `echo ${callId}` },
      approve: (options?: { reason?: string }) => decide(`${callId} approved ${options?.reason ?? ''}`.trim()),
      deny: (options?: { reason?: string }) => decide(`${callId} denied ${options?.reason ?? ''}`.trim()),
      suspend: () => decide(`${callId} suspended`),
    }
  }

  it('approves with --yes, suspends with nobody to ask, and asks otherwise', async () => {
    const decisions: string[] = []
    const { terminal, input } = keyboard()
    await createApprovalResponder('approve', terminal).answer(approvalEvent('a', decisions))
    await createApprovalResponder('suspend', terminal).answer(approvalEvent('b', decisions))
    const asked = createApprovalResponder('ask', terminal).answer(approvalEvent('c', decisions))
    input.write('n not this one\n')
    await asked
    expect(decisions).toEqual(['a approved approved by --yes', 'b suspended', 'c denied not this one'])
  })

  it('on Ctrl-C denies the call being asked about as interrupted, and every later one without asking', async () => {
    const decisions: string[] = []
    const { terminal, shown } = keyboard()
    const responder = createApprovalResponder('ask', terminal)
    expect(responder.interrupt()).toBeUndefined()
    const asked = responder.answer(approvalEvent('first', decisions))
    expect(responder.interrupt()).toBe('first')
    await asked
    const before = shown()
    await responder.answer(approvalEvent('second', decisions))
    expect(decisions).toEqual(['first denied The user interrupted the run.', 'second denied The user interrupted the run.'])
    expect(shown()).toBe(before)
  })
})

describe('handleInterrupts', () => {
  it('stops the run on the first Ctrl-C, quits on the second, and stops listening when disposed', () => {
    const listeners = new Set<() => void>()
    const source = { on: (_: 'SIGINT', fn: () => void) => listeners.add(fn), off: (_: 'SIGINT', fn: () => void) => listeners.delete(fn) }
    const calls: string[] = []
    const { dispose, press: keyPress } = handleInterrupts(source, { stop: () => calls.push('stop'), quit: () => calls.push('quit') })
    const press = () => listeners.forEach(fn => fn())
    press()
    expect(calls).toEqual(['stop'])
    press()
    // A Ctrl-C typed at a question (a key, not a signal) counts the same.
    keyPress()
    expect(calls).toEqual(['stop', 'quit', 'quit'])
    dispose()
    expect(listeners.size).toBe(0)
  })
})

describe('createRenderer', () => {
  it('puts the answer on stdout and the activity on stderr, each status on its own line, subagents indented', () => {
    let out = ''
    let err = ''
    const style = terminalStyle(false, {})
    const render = createRenderer({ out: { write: (text: string) => (out += text) }, err: { write: (text: string) => (err += text) }, outStyle: style, errStyle: style })
    const base = { runId: 'r', depth: 0, turnId: 't' }
    const events: AgentStreamEvent[] = [
      { ...base, type: 'thinking', delta: 'hmm' },
      { ...base, type: 'text', delta: 'Working' },
      { ...base, type: 'tool-call', callId: 'c1', name: 'fetch_url', input: { url: 'https://example.com/a\nb' } },
      { ...base, type: 'tool-progress', callId: 'c1', name: 'fetch_url', kind: 'download', text: 'Downloaded', completed: 3, total: 10, sequence: 1, skipped: 0 },
      { ...base, type: 'tool-result', callId: 'c1', name: 'fetch_url', output: 'page', isError: false, durationMs: 1234 },
      { ...base, type: 'retry', attempt: 2, delayMs: 1500, error: new ClassifiedError('overloaded', { kind: 'overloaded' } as never), discardedThinking: '' },
      { ...base, type: 'subagent-start', depth: 1, id: 'child-1', task: 'look around' },
      { ...base, type: 'text', depth: 1, delta: 'child text stays out' },
      { ...base, type: 'tool-call', depth: 1, callId: 'c2', name: 'grep', input: { pattern: 'x' } },
      { ...base, type: 'tool-result', depth: 1, callId: 'c2', name: 'grep', output: [{ type: 'text', text: 'bad pattern\nmore' }], isError: true },
      { ...base, type: 'subagent-end', depth: 1, id: 'child-1' },
      { ...base, type: 'turn-end', turn: 1, usage: {} as never, finishReason: 'stop' },
      { ...base, type: 'text', delta: 'Done.' },
    ]
    events.forEach(render)
    expect(out).toBe('Working\nDone.')
    expect(err).toBe([
      'thinking…',
      'hmm',
      // On a shared terminal, "Working" (stdout) sits on this line: the status starts below it.
      '',
      '→ fetch_url https://example.com/a',
      '  … Downloaded (3/10)',
      '✓ fetch_url 1.2s',
      'retrying in 1.5s (attempt 2): overloaded',
      '⤷ subagent child-1: look around',
      '  → grep x',
      '  ✗ grep: bad pattern',
      '✓ subagent child-1',
      '',
    ].join('\n'))
  })
})
