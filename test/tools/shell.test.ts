import type { ToolResultBlock } from '../../src/core/content'
import type { ToolContext, ToolDef } from '../../src/tools/types'
import { afterAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { defaultExecutionContext, executionContextOf } from '../../src/contexts/from-tool-context'
import { createProcessContext } from '../../src/contexts/process'
import { scriptedProvider } from '../../src/testing'
import { createShellTool, resolveShellSpec, shell } from '../../src/tools/shell'
import { eventually, isRunning, tempDirs, toolContext } from '../contexts/support'

const tempDir = tempDirs('shell')
const execution = createProcessContext({ cwd: tempDir(), killGraceMs: 300 })
afterAll(() => execution.destroy())

/** Validate like the loop does, then execute. */
async function call(def: ToolDef, input: Record<string, unknown>, ctx: ToolContext = toolContext({ execution })): Promise<string> {
  const checked = def.validate!(input)
  if (!checked.ok)
    throw new Error(checked.error)
  return String(await def.execute(checked.value, ctx))
}

const FOOTER = /\n\[exit code (\d+) · \d+(\.\d)? m?s\]$/

describe('shell: output and footer', () => {
  it('returns the output then an exit-code and duration footer', async () => {
    const out = await call(shell, { command: 'echo hello' })
    expect(out).toMatch(/^hello\n\[exit code 0 · \d+(\.\d)? m?s\]$/)
    expect(await call(shell, { command: 'echo oops; exit 3' })).toMatch(/^oops\n\[exit code 3 · /)
  })

  it('says so when there is no output', async () => {
    expect(await call(shell, { command: 'true' })).toMatch(/^\(no output\)\n\[exit code 0 · /)
  })

  it('interleaves stderr with stdout in arrival order', async () => {
    const out = await call(shell, { command: 'echo a; sleep 0.05; echo b 1>&2; sleep 0.05; echo c' })
    expect(out).toMatch(/^a\nb\nc\n\[exit code 0/)
  })

  it('adds a footer line even when the output does not end with a newline', async () => {
    expect(await call(shell, { command: 'printf abc' })).toMatch(/^abc\n\[exit code 0/)
  })

  it('runs in the execution context (its cwd), not the host process cwd', async () => {
    expect(await call(shell, { command: 'pwd' })).toMatch(new RegExp(`^${execution.cwd}\\n`))
  })
})

describe('shell: tail-priority truncation', () => {
  const small = createShellTool({ maxOutputBytes: 10 })

  it('keeps output of exactly the cap whole, with no marker', async () => {
    expect(await call(small, { command: 'printf 0123456789' })).toMatch(/^0123456789\n\[exit code 0/)
  })

  it('one byte over the cap drops the first byte behind a head marker', async () => {
    expect(await call(small, { command: 'printf 0123456789A' })).toMatch(/^\[… 1 bytes dropped …\]\n123456789A\n\[exit code 0/)
  })

  it('never splits a multibyte character at the cut', async () => {
    const tiny = createShellTool({ maxOutputBytes: 4 })
    // a(1) é(2) €(3): the last 4 bytes start inside é, so é goes too.
    expect(await call(tiny, { command: 'printf "aé€"' })).toMatch(/^\[… 3 bytes dropped …\]\n€\n\[exit code 0/)
  })

  it('keeps the end of a large output by default (32 KiB) and counts everything dropped', async () => {
    const out = await call(shell, { command: 'head -c 100000 /dev/zero | tr "\\0" x; echo; echo LAST LINE' })
    const total = 100000 + 1 + 'LAST LINE\n'.length
    expect(out.startsWith(`[… ${total - 32 * 1024} bytes dropped …]\n`)).toBe(true)
    expect(out).toMatch(/x\nLAST LINE\n\[exit code 0/)
    const body = out.slice(out.indexOf('\n') + 1, out.lastIndexOf('[exit code'))
    expect(Buffer.byteLength(body)).toBe(32 * 1024)
  })
})

describe('shell: timeout and abort', () => {
  it('a timeout kills the process group and says so in the footer', async () => {
    const out = await call(shell, { command: 'sleep 30 & echo "$!"; sleep 30 & echo "$!"; wait', timeout: 300 })
    expect(out).toMatch(/\[timed out after 300 ms; the command and its child processes were killed · /)
    const pids = out.split('\n').filter(line => /^\d+$/.test(line)).map(Number)
    expect(pids).toHaveLength(2)
    await eventually(() => pids.every(pid => !isRunning(pid)))
  })

  it('aborting the call through ctx.signal kills the process group', async () => {
    const controller = new AbortController()
    const pending = call(shell, { command: 'sleep 30 & echo "$!"; wait' }, toolContext({ execution, signal: controller.signal }))
    setTimeout(() => controller.abort(), 300)
    const out = await pending
    expect(out).toMatch(/\[aborted; the command and its child processes were killed · /)
    const pid = Number(out.split('\n')[0])
    await eventually(() => !isRunning(pid))
  })
})

describe('shell: schema and background availability', () => {
  const properties = (spec: { inputSchema: Record<string, unknown> }) => Object.keys(spec.inputSchema.properties as object)
  const ephemeral = execution.capabilities
  const durable = { ...ephemeral, detachedTasks: 'durable' as const }

  it('hides run_in_background by default (no tasksDir) and shows it once tasksDir is set', () => {
    expect(properties(shell.spec)).toEqual(['command', 'timeout'])
    expect(shell.spec.description).not.toContain('run_in_background')
    const shown = resolveShellSpec(shell, { tasksDir: '/tmp/tasks' }, ephemeral)
    expect(properties(shown)).toEqual(['command', 'timeout', 'run_in_background'])
    expect(shown.description).toContain('run_in_background')
    expect(shown.description).toContain('wait_task')
    expect(resolveShellSpec(shell, {}, ephemeral)).toBe(shell.spec)
  })

  it('disableBackgroundTasks: true hides it; non-durable hides it only for non-durable contexts', () => {
    expect(properties(resolveShellSpec(shell, { tasksDir: '/t', disableBackgroundTasks: true }, durable))).not.toContain('run_in_background')
    expect(properties(resolveShellSpec(shell, { tasksDir: '/t', disableBackgroundTasks: 'non-durable' }, ephemeral))).not.toContain('run_in_background')
    expect(properties(resolveShellSpec(shell, { tasksDir: '/t', disableBackgroundTasks: 'non-durable' }, durable))).toContain('run_in_background')
    expect(properties(resolveShellSpec(shell, { tasksDir: '/t' }, { ...ephemeral, detachedTasks: 'none' }))).not.toContain('run_in_background')
  })

  it('leaves tools it did not build alone', () => {
    const other: ToolDef = { spec: { name: 'shell', description: 'custom', inputSchema: { type: 'object' } }, execute: () => '' }
    expect(resolveShellSpec(other, { tasksDir: '/t' }, ephemeral)).toBe(other.spec)
  })

  it('refuses run_in_background with a clear reason when background mode is off', async () => {
    await expect(call(shell, { command: 'true', run_in_background: true })).rejects.toThrow(/no tasks directory is configured/)
    const disabled = toolContext({ execution, behavior: { tasksDir: tempDir(), disableBackgroundTasks: true } })
    await expect(call(shell, { command: 'true', run_in_background: true }, disabled)).rejects.toThrow(/disabled/)
  })
})

describe('shell: shellLongTimeoutMs', () => {
  it('refuses a long blocking call when background mode is available, steering to run_in_background', async () => {
    const ctx = toolContext({ execution, behavior: { tasksDir: tempDir(), shellLongTimeoutMs: 1_000 } })
    await expect(call(shell, { command: 'touch ran', timeout: 5_000 }, ctx)).rejects.toThrow(/Refused: .*run_in_background: true.*wait_task/)
    expect(await execution.stat('ran')).toBeUndefined()
    expect(await call(shell, { command: 'echo fine', timeout: 1_000 }, ctx)).toMatch(/^fine\n/)
  })

  it('lets the long call run when background mode is not available, or the knob is off', async () => {
    const noTasks = toolContext({ execution, behavior: { shellLongTimeoutMs: 1_000 } })
    expect(await call(shell, { command: 'echo ran', timeout: 5_000 }, noTasks)).toMatch(/^ran\n/)
    const off = toolContext({ execution, behavior: { tasksDir: tempDir(), shellLongTimeoutMs: 0 } })
    expect(await call(shell, { command: 'echo ran', timeout: 5_000 }, off)).toMatch(/^ran\n/)
  })

  it('lets the long call run when the context claims detached tasks but has no task runner', async () => {
    // Everything of the process context but its task runner: a background call could not start here either.
    const noRunner = new Proxy(execution, { get: (target, key) => key === 'tasks' ? undefined : Reflect.get(target, key, target) })
    expect(noRunner.capabilities.detachedTasks).not.toBe('none')
    const ctx = toolContext({ execution: noRunner, behavior: { tasksDir: tempDir(), shellLongTimeoutMs: 1_000 } })
    expect(await call(shell, { command: 'echo ran', timeout: 5_000 }, ctx)).toMatch(/^ran\n/)
    await expect(call(shell, { command: 'echo bg', run_in_background: true }, ctx)).rejects.toThrow(/cannot run background tasks/)
  })
})

describe('shell: context resolution and the agent loop', () => {
  it('falls back to one shared process context when the tool context carries none', () => {
    const bare = { ...toolContext({ execution }), execution: undefined } as unknown as ToolContext
    expect(executionContextOf(bare)).toBe(defaultExecutionContext())
    expect(defaultExecutionContext().type).toBe('process')
    expect(executionContextOf(toolContext({ execution }))).toBe(execution)
  })

  it('runs as a tool of an agent; a bad input is rejected before anything runs', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'shell', input: { command: 'echo from-agent' } }, { name: 'shell', input: { command: '' } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { shell } })
    await agent.run({ prompt: 'go' })
    const results = provider.requests[1].messages[2].content as ToolResultBlock[]
    expect(results[0].output).toMatch(/^from-agent\n\[exit code 0/)
    expect(results[0].isError).toBeUndefined()
    expect(results[1].isError).toBe(true)
    expect(results[1].output).toMatch(/^Invalid arguments for shell: command/)
  })
})

it('the footer pattern used above matches a real footer', async () => {
  expect(await call(shell, { command: 'exit 0' })).toMatch(FOOTER)
})
