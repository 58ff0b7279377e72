import type { AgentBehavior } from '../agent/behavior'
import type { ModelTargetSpec } from '../agent/model-targets'
import type { ChildRunStats } from '../agent/stats'
import type { ExecutionContext } from '../contexts/types'
import type { SpawnContext } from '../hooks/hook-map'
import type { Provider } from '../providers/types'
import type { ToolContext, ToolDef, ToolMap } from './types'
import { z } from 'zod'
import { createAgent } from '../agent/create-agent'
import { tool } from './tool'

/** What a subagent is made of. */
export interface ChildAgent {
  provider: Provider | readonly Provider[]
  /** The child's tools. Include a `spawn` tool to let it spawn in turn (up to `maxDepth`). */
  tools?: ToolMap
  system?: string
  behavior?: AgentBehavior
  toolAliases?: Record<string, string>
  /** Where the child's tools run. Default: the parent's execution context (same workspace). */
  execution?: ExecutionContext
}

/** Options of `createSpawnTool`. */
export interface SpawnToolOptions {
  child: ChildAgent
  /** Deepest subagent level allowed: 1 lets the top-level agent spawn, but not its children. Default 2. */
  maxDepth?: number
  /** Children of one parent run that may run at once; further spawn calls wait. Default 4. */
  maxConcurrent?: number
  /** Wall-clock limit per child run; the child is aborted and reported `timeout`. Default none. */
  timeoutMs?: number
  /**
   * Named model choices the model may pass as `model` (e.g. `{ fast: 'claude-haiku-4-5' }`,
   * or pinned to a provider: `{ deep: { provider: 'openai', model: 'gpt-5.2' } }`).
   * Without it, `model` is passed to the child as a model id.
   */
  models?: Record<string, string | ModelTargetSpec>
  /** Record children in the parent's session (needed for `resume`). Default true. */
  persist?: boolean
  /** Tool description override. */
  description?: string
}

const DEFAULT_DESCRIPTION = 'Delegate a self-contained task to a subagent that works on its own with its own tools '
  + 'and returns its final answer. Give it everything it needs in `task`: it does not see this conversation. '
  + 'Pass `resume` with an earlier child label (e.g. "child-2") to continue that subagent\'s work.'

/**
 * The `spawn` tool: runs a task on a fresh child agent and returns the child's
 * final answer. The child's events reach the parent's hooks as `child:*`
 * (with `childId` and `depth`); its stats land in the parent's
 * `stats.children` and totals; `spawn:before` / `spawn:complete` /
 * `spawn:error` bracket each child. Tool state is not inherited: each child
 * agent has its own.
 */
export function createSpawnTool(options: SpawnToolOptions): ToolDef {
  const maxDepth = options.maxDepth ?? 2
  const limit = Math.max(1, options.maxConcurrent ?? 4)
  const slots = new Map<string, Semaphore>()

  const input = z.object({
    task: z.string().min(1).describe('The complete task for the subagent'),
    model: z.string().optional().describe(options.models ? `One of: ${Object.keys(options.models).join(', ')}` : 'Model id for the subagent'),
    resume: z.string().optional().describe('Label of an earlier child to continue, e.g. "child-2"'),
  })

  return tool({
    name: 'spawn',
    description: options.description ?? DEFAULT_DESCRIPTION,
    input,
    // Children run in parallel up to `maxConcurrent`; the semaphore, not the scheduler, is the bound.
    isConcurrencySafe: true,
    async execute({ task, model, resume }, ctx) {
      const depth = ctx.depth + 1
      if (depth > maxDepth)
        throw new Error(`A subagent at depth ${depth} would exceed maxDepth ${maxDepth}; do the task yourself.`)
      const semaphore = slots.get(ctx.runId) ?? new Semaphore(limit)
      slots.set(ctx.runId, semaphore)
      await semaphore.acquire(ctx.signal)
      try {
        return await runChild(options, ctx, { task, model, resume, depth })
      }
      finally {
        semaphore.release()
        if (semaphore.idle)
          slots.delete(ctx.runId)
      }
    },
  })
}

interface ChildRequest { task: string, model?: string, resume?: string, depth: number }

async function runChild(options: SpawnToolOptions, ctx: ToolContext, request: ChildRequest): Promise<string> {
  const host = ctx.subagents
  const persist = options.persist !== false && ctx.session !== undefined
  const resumeRunId = request.resume === undefined ? undefined : findChildRun(ctx, request.resume)
  const id = request.resume ?? host.nextChildLabel()
  const target = routeModel(options, request.model)
  const child = createAgent({
    provider: options.child.provider,
    tools: options.child.tools,
    system: options.child.system,
    behavior: options.child.behavior,
    toolAliases: options.child.toolAliases,
    execution: options.child.execution ?? ctx.execution,
    session: persist ? ctx.session : undefined,
  })
  const spawn: SpawnContext = {
    runId: ctx.runId,
    depth: request.depth,
    parentRunId: ctx.parentRunId,
    parentCallId: ctx.parentCallId,
    id,
    task: request.task,
    callId: ctx.callId,
    model: target?.model,
    provider: target?.provider,
    resumesChildId: request.resume,
    tracingContext: {},
  }
  forwardChildEvents(child.hooks, host, id)
  host.emit('spawn:before', spawn)

  let timedOut = false
  const stopChild = () => child.abort()
  ctx.signal.addEventListener('abort', stopChild, { once: true })
  const timer = options.timeoutMs === undefined
    ? undefined
    : setTimeout(() => {
        timedOut = true
        child.abort()
      }, options.timeoutMs)
  try {
    const stats = await child.run({
      prompt: request.task,
      model: target ? [target] : undefined,
      depth: request.depth,
      parentRunId: ctx.runId,
      parentCallId: ctx.callId,
      runLabel: id,
      resumeRunId,
      tracingContext: spawn.tracingContext,
    })
    const status: ChildRunStats['status'] = timedOut ? 'timeout' : stats.stopReason === 'aborted' ? 'aborted' : 'completed'
    const record: ChildRunStats = { id, task: request.task, stats, callId: ctx.callId, depth: request.depth, status }
    host.reportChild(record)
    host.emit('spawn:complete', { ...spawn, stats: record })
    if (status !== 'completed')
      return `[${id} ${status === 'timeout' ? 'timed out' : 'was aborted'} after ${stats.turns} turn(s)]${stats.text ? `\n${stats.text}` : ''}`
    return stats.text || `[${id} finished without a text answer]`
  }
  catch (error) {
    host.emit('spawn:error', { ...spawn, error })
    throw error
  }
  finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', stopChild)
  }
}

/** Re-emit every event of the child on the parent's bus as `child:<event>`; events already re-emitted keep their name and marks. */
function forwardChildEvents(childHooks: ReturnType<typeof createAgent>['hooks'], host: ToolContext['subagents'], childId: string): void {
  childHooks.beforeEach((event) => {
    const name = String(event.name)
    const context = event.args[0] as unknown as Record<string, unknown>
    if (name.startsWith('child:'))
      host.emit(name as never, context)
    else
      host.emit(`child:${name}` as never, { ...context, childId })
  })
}

/** The run id of the latest child run with this label, or an error the model can act on. */
function findChildRun(ctx: ToolContext, label: string): string {
  if (!ctx.session)
    throw new Error('resume needs the agent to have a session (children are recorded there)')
  const runs = ctx.session.runs.filter(run => run.label === label)
  const last = runs.at(-1)
  if (!last)
    throw new Error(`There is no earlier child labeled "${label}" in this session`)
  return last.id
}

function routeModel(options: SpawnToolOptions, model: string | undefined): ModelTargetSpec | undefined {
  if (model === undefined)
    return undefined
  const named = options.models?.[model]
  if (options.models && named === undefined)
    throw new Error(`Unknown model choice "${model}"; use one of: ${Object.keys(options.models).join(', ')}`)
  const choice = named ?? model
  return typeof choice === 'string' ? { model: choice } : choice
}

/** A counting semaphore whose waiters give up when their signal aborts. */
class Semaphore {
  private active = 0
  private readonly waiters: (() => void)[] = []
  constructor(private readonly limit: number) {}

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0
  }

  async acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1
      return
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = { grant: () => {}, cancel: () => {} }
      waiter.grant = () => {
        signal.removeEventListener('abort', waiter.cancel)
        this.active += 1
        resolve()
      }
      waiter.cancel = () => {
        const index = this.waiters.indexOf(waiter.grant)
        if (index !== -1)
          this.waiters.splice(index, 1)
        reject(signal.reason)
      }
      const { grant, cancel } = waiter
      this.waiters.push(grant)
      signal.addEventListener('abort', cancel, { once: true })
    })
  }

  release(): void {
    this.active -= 1
    this.waiters.shift()?.()
  }
}
