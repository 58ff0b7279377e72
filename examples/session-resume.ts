/**
 * Sessions: a process is killed mid-run, and a new one resumes from the file store.
 *
 *   node --import tsx examples/session-resume.ts
 *
 * The example starts itself again as a child process that runs an agent
 * recording into a file store. When the child's agent is in the middle of
 * a tool call, this process kills it with SIGKILL: no cleanup, no flush.
 * Then it loads the session from disk and lets a fresh agent finish the job.
 *
 * With ANTHROPIC_API_KEY set, both agents talk to Claude; without it they run
 * on scripted models. The tools, the kill and the store are real either way.
 */
import type { Provider, ToolDef } from 'zidane'
import { spawn } from 'node:child_process'
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { createFileStore, createSession, loadSession } from 'zidane/session'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const LINE_START = /^/gm

const live = Boolean(process.env.ANTHROPIC_API_KEY)
const KILL_ME = 'KILL-ME-NOW'
const SYSTEM = 'You keep a log. Write each step with write_note, one call per turn, then call deploy once; when it returns, say done.'
const PROMPT = 'Log "step 1: build", then "step 2: test", then deploy.'

/** A real tool: appends a line to the log file. */
function noteTool(logFile: string): ToolDef {
  return tool({
    name: 'write_note',
    description: 'Append one line to the log file.',
    input: z.object({ line: z.string() }),
    execute: async ({ line }) => {
      await appendFile(logFile, `${line}\n`)
      return `logged: ${line}`
    },
  })
}

/** In the first process, deploy hangs (and tells the parent to kill us); after the resume, it finishes. */
function deployTool(hang: boolean): ToolDef {
  return tool({
    name: 'deploy',
    description: 'Deploy the build.',
    input: z.object({}),
    execute: async () => {
      if (hang) {
        console.log(KILL_ME)
        await new Promise(() => {})
      }
      return 'deployed'
    },
  })
}

function model(turns: Parameters<typeof scriptedProvider>[0]): Provider {
  return live ? anthropic() : scriptedProvider(turns, { defaultModel: 'scripted-log' })
}

if (process.argv[2] === 'child')
  await child(process.argv[3])
else
  await parent()

/** The process that gets killed: records into the file store until SIGKILL arrives. */
async function child(dir: string): Promise<void> {
  const store = createFileStore({ dir })
  const session = await createSession({ store })
  console.log(JSON.stringify({ sessionId: session.id }))
  const agent = createAgent({
    provider: model([
      { text: 'Logging step 1.', toolCalls: [{ name: 'write_note', input: { line: 'step 1: build' } }] },
      { text: 'Logging step 2.', toolCalls: [{ name: 'write_note', input: { line: 'step 2: test' } }] },
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: {} }] },
    ]),
    tools: { note: noteTool(join(dir, 'log.txt')), deploy: deployTool(true) },
    system: SYSTEM,
    session,
    behavior: { maxTurns: 8 },
  })
  await agent.run({ prompt: PROMPT })
  throw new Error('the child was supposed to be killed during deploy')
}

async function parent(): Promise<void> {
  if (!live)
    console.log('[offline] ANTHROPIC_API_KEY is not set: the models are scripted; the kill and the store are real.\n')
  const dir = await mkdtemp(join(tmpdir(), 'zidane-resume-'))
  try {
    const sessionId = await runChildUntilKilled(dir)
    const store = createFileStore({ dir })
    const session = await loadSession(sessionId, { store })

    console.log(`\nwhat the file store kept (${session.turns.length} turns):`)
    for (const turn of session.turns) {
      const parts = turn.content.map(block => block.type === 'text'
        ? JSON.stringify(block.text)
        : block.type === 'tool_call' ? `call ${block.name}` : block.type === 'tool_result' ? `result ${String(block.output)}` : block.type)
      console.log(`  ${turn.role.padEnd(9)} ${parts.join(', ')}`)
    }
    console.log(`  run status: ${session.runs.at(-1)?.status} (the process died before it could say more)`)
    console.log('  the deploy call in flight is not there: a call is stored together with its result')

    const resumed = createAgent({
      provider: model([
        {
          respond: (request) => {
            const logged = request.messages.flatMap(message => message.content)
              .filter(block => block.type === 'tool_result')
              .length
            return { text: `Picking up after ${logged} logged step(s): deploying again.`, toolCalls: [{ name: 'deploy', input: {} }] }
          },
        },
        { text: 'Done: both steps are logged and the build is deployed.' },
      ]),
      tools: { note: noteTool(join(dir, 'log.txt')), deploy: deployTool(false) },
      system: SYSTEM,
      session,
      behavior: { maxTurns: 8 },
    })
    resumed.hooks.hook('stream:end', ({ content }) => {
      const text = content.map(block => block.type === 'text' ? block.text : '').join('')
      if (text)
        console.log(`  model: ${text}`)
    })
    resumed.hooks.hook('tool:after', ({ name, result }) => console.log(`  -> ${name}: ${String(result)}`))
    console.log('\nresuming in this process:')
    const stats = await resumed.run()
    console.log(`  stop: ${stats.stopReason} · turns this run: ${stats.turns} · turns in the session: ${session.turns.length}`)
    console.log(`\nlog file:\n${(await readFile(join(dir, 'log.txt'), 'utf8')).trimEnd().replace(LINE_START, '  ')}`)
  }
  finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Start the child, wait until it is inside `deploy`, kill it with SIGKILL, and return its session id. */
async function runChildUntilKilled(dir: string): Promise<string> {
  const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'child', dir], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<NodeJS.Signals | number | null>(resolve => proc.once('exit', (code, signal) => resolve(signal ?? code)))
  let sessionId: string | undefined
  let killed = false
  for await (const line of createInterface({ input: proc.stdout })) {
    if (line.startsWith('{'))
      sessionId = (JSON.parse(line) as { sessionId: string }).sessionId
    if (line === KILL_ME) {
      console.log(`child ${proc.pid} is inside deploy: sending SIGKILL`)
      proc.kill('SIGKILL')
      killed = true
      break
    }
  }
  const how = await exited
  if (!killed || sessionId === undefined)
    throw new Error(`the child ended on its own (${String(how)}) before reaching deploy`)
  console.log(`child ended by ${String(how)}`)
  return sessionId
}
