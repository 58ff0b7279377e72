/**
 * Shared setup of the file-tool tests: a real process context over a fresh
 * temp directory, tool contexts with or without a session, validated calls
 * (like the loop makes them), and agent runs with the file policies attached.
 */

import type { AgentOptions } from '../../src/agent/options'
import type { ToolAfterContext } from '../../src/hooks/hook-map'
import type { AgentBehavior } from '../../src/knobs/behavior'
import type { Session } from '../../src/session/session'
import type { FileToolBehavior } from '../../src/tools/file-behavior'
import type { ToolContext, ToolDef, ToolOutcome, ToolOutput } from '../../src/tools/types'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'
import { createAgent } from '../../src/agent/create-agent'
import { createProcessContext } from '../../src/contexts/process'
import { createSession } from '../../src/session/session'
import { toolContext } from '../contexts/support'

export { tempDirs } from '../contexts/support'

/** Behavior with the file-tool knobs, whether or not `AgentBehavior` declares them yet. */
export function fileBehavior(knobs: FileToolBehavior & AgentBehavior): AgentBehavior {
  return knobs as AgentBehavior
}

/** A workspace: a temp dir, a process context rooted in it, and a writer for fixtures. */
export function workspace(makeDir: () => string) {
  const dir = makeDir()
  const execution = createProcessContext({ cwd: dir })
  afterAll(() => execution.destroy())
  const put = (relative: string, content: string | Uint8Array) => {
    const path = join(dir, relative)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
    return path
  }
  return { dir, execution, put }
}

export interface Harness {
  ctx: ToolContext
  outcomes: ToolOutcome[]
  /** Validate like the loop does, then execute. Throws the tool's (or the validator's) error. */
  call: (def: ToolDef, input: Record<string, unknown>) => Promise<ToolOutput>
  /** Same, as text. */
  text: (def: ToolDef, input: Record<string, unknown>) => Promise<string>
  /** The error message of a call that must fail. */
  error: (def: ToolDef, input: Record<string, unknown>) => Promise<string>
}

export function harness(execution: ReturnType<typeof createProcessContext>, options: { session?: Session, behavior?: AgentBehavior } = {}): Harness {
  const outcomes: ToolOutcome[] = []
  const ctx: ToolContext = {
    ...toolContext({ execution, behavior: options.behavior as Record<string, unknown> | undefined }),
    session: options.session,
    reportOutcome: outcome => outcomes.push(outcome),
    progress: () => {},
  }
  const call = async (def: ToolDef, input: Record<string, unknown>) => {
    const checked = def.validate!(input)
    if (!checked.ok)
      throw new Error(checked.error)
    return def.execute(checked.value, ctx)
  }
  return {
    ctx,
    outcomes,
    call,
    text: async (def, input) => {
      const out = await call(def, input)
      if (typeof out !== 'string')
        throw new Error(`expected text, got ${JSON.stringify(out).slice(0, 200)}`)
      return out
    },
    error: async (def, input) => {
      try {
        await call(def, input)
      }
      catch (error) {
        return (error as Error).message
      }
      throw new Error('expected the call to fail')
    },
  }
}

export async function newSession(): Promise<Session> {
  return createSession()
}

/** An agent over `options` (built-in policies included) with every `tool:after` recorded. */
export function agentWith(options: AgentOptions) {
  const agent = createAgent(options)
  const after: ToolAfterContext[] = []
  agent.hooks.hook('tool:after', (ctx) => {
    after.push(ctx)
  })
  return { agent, after }
}
