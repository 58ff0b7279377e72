/**
 * The `zidane` command as a user runs it: the real process against a fake
 * model server, on the real provider clients, with sessions in a data folder
 * on disk. What a terminal shows is checked in a pseudo-terminal
 * (pty.test.ts); here the streams are pipes.
 */

import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { fakeModelServers, userOf } from './fake-user'
import { BIN_SOURCE, cleanEnv, freshDir, runCli, TSX } from './process'

// Each run starts a Node process with a TypeScript loader: seconds on a busy machine.
vi.setConfig({ testTimeout: 90_000 })

const serve = fakeModelServers()

const setup = userOf

const HOSTILE = 'Done.\x1B]0;owned\x07 \x1B[2J'

describe('zidane "prompt"', () => {
  it('streams the answer to stdout and the tool activity to stderr, runs the build tools in the cwd, and saves the session', async () => {
    const server = await serve([
      { thinking: 'Look first.', text: 'Listing.', toolCalls: [{ name: 'shell', input: { command: 'echo made > made.txt && echo ok' } }] },
      ({ toolResults }) => ({ text: `Shell said ${toolResults[0].split('\n')[0]}.` }),
    ])
    const { env, cwd, base, home } = setup(server)
    // --yes: the shell needs approval, and nobody is at a terminal to give it.
    const run = await runCli([...base, '--yes', 'make', 'a file'], { env, cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('Listing.\nShell said ok.\n')
    expect(run.stderr).toContain('Look first.')
    expect(run.stderr).toContain('→ shell echo made > made.txt && echo ok')
    expect(run.stderr).toMatch(/✓ shell \d+\.\ds/)
    expect(run.stderr).toMatch(/completed · 2 turns · 20 in, 10 out · \$\d\.\d{4} · session [\w-]+/)
    // Piped, nothing is coloured.
    expect(run.stderr).not.toContain('\x1B[')
    expect(existsSync(join(cwd, 'made.txt'))).toBe(true)
    // The chat profile's tools and the prompt reached the model.
    const body = server.requests[0].body as { messages: { content: unknown }[], tools: { name: string }[] }
    // The session's tasks folder turns the shell's background mode on, with its task tools.
    expect(body.tools.map(tool => tool.name).sort()).toEqual(['edit', 'glob', 'grep', 'kill_task', 'list_files', 'list_tasks', 'multi_edit', 'read_file', 'shell', 'wait_task', 'write_file'])
    expect(JSON.stringify(body.messages[0].content)).toContain('make a file')
    expect(readdirSync(join(home, 'transcripts')).filter(name => name.endsWith('.jsonl'))).toHaveLength(1)

    const list = await runCli(['--list'], { env, cwd })
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(new RegExp(`^[\\w-]+  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  4 turns  ${cwd}  make a file\\n$`))
  })

  it('passes model text with escape sequences through untouched when stdout is not a terminal', async () => {
    const server = await serve([{ text: HOSTILE }])
    const { env, cwd, base } = setup(server)
    const run = await runCli([...base, 'hi'], { env, cwd })
    expect(run.stdout).toBe(`${HOSTILE}\n`)
  })

  it('stops quietly when the reader of its output goes away (a broken pipe)', async () => {
    const server = await serve([{ text: Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(90)}\n`) }])
    const { env, cwd, base } = setup(server)
    const child = spawn(process.execPath, ['--import', TSX, BIN_SOURCE, ...base, 'talk'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>(resolve => child.on('close', resolve))
    expect(stderr).not.toContain('EPIPE')
    expect(code).toBe(0)
  })

  it('--json prints each agent.stream() event as one line of JSON, and ends a failed run with an error line', async () => {
    const server = await serve([{ text: 'One.', toolCalls: [{ id: 'toolu_1', name: 'list_files', input: {} }] }, { text: 'Two.' }])
    const { env, cwd, base } = setup(server)
    const run = await runCli([...base, '--json', 'go'], { env, cwd })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const events = run.stdout.trimEnd().split('\n').map(line => JSON.parse(line) as { type: string, [key: string]: unknown })
    expect(events.map(event => event.type)).toEqual(['run-start', 'turn-start', 'text', 'tool-call', 'tool-result', 'turn-end', 'turn-start', 'text', 'turn-end', 'done'])
    expect(events[3]).toMatchObject({ callId: 'toolu_1', name: 'list_files', depth: 0 })
    expect(events.at(-1)).toMatchObject({ stats: { stopReason: 'completed', turns: 2 } })

    // The script is used up: the next request gets a 400, which the provider does not retry.
    const failed = await runCli([...base, '--json', 'again'], { env, cwd })
    expect(failed.code).toBe(1)
    const last = JSON.parse(failed.stdout.trimEnd().split('\n').at(-1)!)
    expect(last).toMatchObject({ type: 'error', exitCode: 1, error: { name: 'AgentProviderError' } })
  })

  it('--session records into a named session and --resume continues the latest session of the folder', async () => {
    const server = await serve([{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' }])
    const { env, cwd, base } = setup(server)
    expect((await runCli([...base, '--session', 'work-1', 'first question'], { env, cwd })).code).toBe(0)
    const second = await runCli([...base, '--resume', 'second question'], { env, cwd })
    expect(second.code).toBe(0)
    expect(second.stderr).toContain('session work-1')
    const texts = (server.requests[1].body.messages as { content: unknown }[]).map(message => JSON.stringify(message.content))
    expect(texts).toEqual([expect.stringContaining('first question'), expect.stringContaining('First answer.'), expect.stringContaining('second question')])
    // A new run without --resume starts a new session.
    await runCli([...base, 'third'], { env, cwd })
    expect(server.requests[2].body.messages as unknown[]).toHaveLength(1)
  })

  it('reads the prompt from standard input when none is given', async () => {
    const server = await serve([{ text: 'ok' }])
    const { env, cwd, base } = setup(server)
    const run = await runCli(base, { env, cwd, stdin: 'summarize\nthis\n' })
    expect(run.code).toBe(0)
    expect(JSON.stringify(server.requests[0].body.messages)).toContain('summarize\\nthis')
  })

  it('runs on any OpenAI-compatible server with --provider openai-compat, --base-url and --model', async () => {
    const server = await serve([{ text: 'compat ok' }])
    const cwd = freshDir('cwd')
    const env = cleanEnv({ ZIDANE_HOME: freshDir('home') })
    const run = await runCli(['--provider', 'openai-compat', '--base-url', server.openaiURL, '--model', 'local-model', 'hi'], { env, cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('compat ok\n')
    expect(server.requests[0]).toMatchObject({ wire: 'openai-chat', body: { model: 'local-model' } })
    // With only --base-url and no key, the server is taken as OpenAI-compatible, which needs a model.
    const noModel = await runCli(['--base-url', server.openaiURL, 'hi'], { env, cwd })
    expect(noModel.code).toBe(2)
    expect(noModel.stderr).toContain('--provider openai-compat needs --base-url and --model')
  })
})

describe('tools that need approval, with nobody at a terminal', () => {
  const writeCall = { id: 'toolu_write', name: 'write_file', input: { path: 'out.txt', content: 'hello' } }
  const script = () => [
    { text: 'Writing.', toolCalls: [writeCall] },
    ({ toolResults }: { toolResults: string[] }) => ({ text: `Result: ${toolResults[0].split('\n')[0]}` }),
  ]

  it('without --yes the run is suspended (exit 6) with nothing written, stays suspended until approved, and --resume --yes runs the call', async () => {
    const server = await serve(script())
    const { env, cwd, base, home } = setup(server)
    const first = await runCli([...base, '--session', 'gate-1', 'write it'], { env, cwd })
    expect(first.code).toBe(6)
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false)
    expect(first.stderr).toContain('Waiting for approval (1 call):\n  write_file (toolu_write)\n    out.txt\n')
    expect(first.stderr).toContain('To decide on a terminal: zidane --session=gate-1 --resume')
    expect(first.stderr).toContain('To approve it: zidane --session=gate-1 --resume --yes')
    expect(first.stderr).toContain('suspended · 1 turn')
    expect(server.requests).toHaveLength(1)

    // Resumed still without --yes: asked again, suspended again, and the model is not called.
    const again = await runCli([...base, '--session', 'gate-1', '--resume'], { env, cwd })
    expect(again.code).toBe(6)
    expect(again.stderr).toContain('Waiting for approval (1 call)')
    expect(server.requests).toHaveLength(1)
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false)

    const approved = await runCli([...base, '--session', 'gate-1', '--resume', '--yes'], { env, cwd })
    expect(approved.code).toBe(0)
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('hello')
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1].toolResults[0]).not.toContain('Not run yet')
    expect(approved.stdout).toContain('Result: ')
    expect(approved.stdout).not.toContain('Blocked')
    // The decision is kept on the call's result in the session, for audits.
    expect(readFileSync(join(home, 'transcripts', 'gate-1.jsonl'), 'utf8')).toContain('"approval":{"approved":true,"reason":"approved by --yes"}')
  })

  it('--json prints the tool-approval event without its functions and ends with the calls that wait and how to continue', async () => {
    const server = await serve(script())
    const { env, cwd, base } = setup(server)
    const run = await runCli([...base, '--json', '--session', 'gate-2', 'write it'], { env, cwd })
    expect(run.code).toBe(6)
    expect(run.stderr).toBe('')
    const events = run.stdout.trimEnd().split('\n').map(line => JSON.parse(line) as { type: string, [key: string]: unknown })
    expect(events.map(event => event.type)).toEqual(['run-start', 'turn-start', 'text', 'tool-call', 'tool-approval', 'tool-result', 'done', 'approval-pending'])
    const approval = events[4]
    expect(approval).toMatchObject({ callId: 'toolu_write', name: 'write_file', input: writeCall.input, depth: 0 })
    expect(Object.keys(approval).sort()).toEqual(['callId', 'depth', 'input', 'name', 'runId', 'turnId', 'type'])
    expect(events[6]).toMatchObject({ stats: { stopReason: 'suspended', pendingApprovals: [{ callId: 'toolu_write', name: 'write_file' }] } })
    expect(events[7]).toEqual({
      type: 'approval-pending',
      sessionId: 'gate-2',
      calls: [{ callId: 'toolu_write', name: 'write_file', input: writeCall.input }],
      continueWith: { ask: 'zidane --session=gate-2 --resume', approveAll: 'zidane --session=gate-2 --resume --yes' },
    })
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false)
  })

  it('the plan profile has no tool that needs approval: its calls run piped without --yes', async () => {
    const server = await serve([{ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'planned' }])
    const { env, cwd, base } = setup(server)
    const run = await runCli([...base, '--profile', 'plan', 'look'], { env, cwd })
    expect(run.code).toBe(0)
    expect(run.stderr).not.toContain('Waiting for approval')
  })
})

describe('flags reach the run', () => {
  it('--profile, --model, --thinking, --data-dir and --cwd', async () => {
    const server = await serve([{ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'planned' }])
    const { env, base } = setup(server)
    const data = freshDir('data')
    const project = freshDir('project')
    writeFileSync(join(project, 'marker-file.txt'), 'x')
    const run = await runCli([...base, '--profile', 'plan', '--model', 'claude-haiku-4-5', '--thinking', 'low', '--data-dir', data, '--cwd', project, 'plan it'], { env, cwd: freshDir('elsewhere') })
    expect(run.code).toBe(0)
    const body = server.requests[0].body as { model: string, thinking?: unknown, tools: { name: string }[], system: unknown }
    expect(body.tools.map(tool => tool.name).sort()).toEqual(['glob', 'grep', 'list_files', 'read_file'])
    expect(body.model).toBe('claude-haiku-4-5')
    expect(body.thinking).toBeDefined()
    expect(JSON.stringify(server.requests[1].body.messages)).toContain('marker-file.txt')
    expect(readdirSync(join(data, 'transcripts')).filter(name => name.endsWith('.jsonl'))).toHaveLength(1)
    // Without the flags: the build tools, the provider's default model, no thinking.
    const plain = await serve([{ text: 'ok' }])
    await runCli(['--base-url', plain.url, 'hi'], { env, cwd: project })
    const plainBody = plain.requests[0].body as { model: string, thinking?: unknown, tools: unknown[] }
    expect(plainBody.model).not.toBe('claude-haiku-4-5')
    expect(plainBody.thinking).toBeUndefined()
    expect(plainBody.tools.length).toBeGreaterThan(4)
  })

  it('--context-window gives auto-compaction the window: a turn past 85% of it is summarized before the next', async () => {
    const call = (inputTokens: number) => ({ toolCalls: [{ name: 'list_files', input: {} }], usage: { inputTokens } })
    // Four turns (the summary keeps the last six messages verbatim, so something must be older), the last past 85%.
    const script = () => [call(10), call(10), call(10), call(900), { text: 'Summary of the work so far.' }, { text: 'done' }]
    const small = await serve(script())
    const { env, cwd } = setup(small)
    expect((await runCli(['--base-url', small.url, '--context-window', '1000', 'go'], { env, cwd })).code).toBe(0)
    expect(small.requests).toHaveLength(6)
    // The fifth request is the summary the loop asks for.
    expect(JSON.stringify(small.requests[4].body.messages)).toContain('summary of everything before the last 6 messages')
    const large = await serve(script())
    await runCli(['--base-url', large.url, 'go'], { env, cwd })
    expect(large.requests).toHaveLength(5)
  })
})

describe('exit codes', () => {
  it('3 when --max-turns is reached, 4 when --max-cost is crossed', async () => {
    const server = await serve([
      { toolCalls: [{ name: 'list_files', input: {} }] },
      { toolCalls: [{ name: 'list_files', input: {} }] },
    ])
    const { env, cwd, base } = setup(server)
    const turns = await runCli([...base, '--max-turns', '1', 'go'], { env, cwd })
    expect(turns.code).toBe(3)
    expect(turns.stderr).toContain('max-turns · 1 turn')
    expect(turns.stderr).toMatch(/Continue with: zidane --session=[\w-]+ --resume/)
    const cost = await runCli([...base, '--max-cost', '0.00001', 'go'], { env, cwd })
    expect(cost.code).toBe(4)
    expect(cost.stderr).toContain('AgentBudgetExceededError')
  })

  it('2 for a command line or environment that cannot run, before any request', async () => {
    const server = await serve([])
    const { env, cwd, base } = setup(server)
    const noKey = cleanEnv({ ZIDANE_HOME: freshDir('home') })
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['--max-turns', 'many', 'go'], env, '--max-turns needs a positive number'],
      [['--bogus', 'go'], env, 'Unknown option \'--bogus\''],
      [['--provider', 'nope', 'go'], env, '--provider must be one of'],
      [['--session', '../x', 'go'], env, '--session needs'],
      [['go'], noKey, 'no provider: set one of ANTHROPIC_API_KEY'],
      [[...base, '--resume'], env, 'no saved session was started in'],
      [[...base, '--session', 'missing', '--resume'], env, 'no saved session "missing"'],
      [[...base, '--cwd', join(cwd, 'nowhere'), 'go'], env, 'is not a folder'],
    ]
    for (const [args, environment, message] of cases) {
      const run = await runCli(args, { env: environment, cwd })
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr, args.join(' ')).toContain(message)
      expect(run.stderr).toContain('zidane --help')
    }
    expect(server.requests).toHaveLength(0)
  })

  it('--help and --version print and exit 0', async () => {
    const cwd = freshDir('cwd')
    const help = await runCli(['--help'], { env: cleanEnv({}), cwd })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: zidane [options] [prompt...]')
    const version = await runCli(['--version'], { env: cleanEnv({}), cwd })
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })
})
