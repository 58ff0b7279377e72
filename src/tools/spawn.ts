import type { AgentStats, ChildRunStats, SchemaOutput, TurnUsage } from '../core/stats'
import type { AgentBehavior, OutputSchema } from '../knobs/behavior'
import type { ModelTargetSpec } from '../providers/model-targets'
import type { ChildAgent } from './spawn-child'
import type { SpawnHookContext } from './spawn-hooks'
import type { SpawnedChild, SpawnStateTracker, SpawnToolState } from './spawn-state'
import type { DurableToolDef, ToolContext } from './types'
import { z } from 'zod'
import { createAgent } from '../agent/create-agent'
import { mergeObjects } from '../core/merge-objects'
import { startTimer } from '../core/timer'
import { clipEcho } from '../text/clip-echo'
import { childSetup, SPAWN_MAX_DEPTH } from './spawn-child'
import { createSpawnState } from './spawn-state'
import { tool } from './tool'

export type { ChildAgent } from './spawn-child'
export type { SpawnedChild, SpawnToolState } from './spawn-state'

/** Options of `createSpawnTool`. */
export interface SpawnToolOptions {
  /** What children are made of; each field left out comes from the parent run. Default: everything inherited. */
  child?: ChildAgent
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

/**
 * The `spawn` tool, with a live view of the children it is running. `Output`
 * is the type of its children's `output`: the output type of the zod schema
 * in `child.behavior.schema`, `unknown` without one.
 */
export type SpawnTool<Output = unknown> = DurableToolDef & {
  readonly state: SpawnToolState
  /**
   * The children this tool ran, found in a run's stats (`stats.children`, at
   * any depth), with `output` typed. Reads the stats objects of runs made in
   * this process (a record read back from storage is not recognized).
   */
  readonly childrenOf: (stats: AgentStats) => ChildRunStats<Output>[]
}

const DEFAULT_DESCRIPTION = 'Delegate a self-contained task to a subagent that works on its own with its own tools '
  + 'and returns its final answer. Give it everything it needs in `task`: it does not see this conversation. '
  + 'Pass `resume` with an earlier child label (e.g. "child-2") to continue that subagent\'s work.'

/**
 * The `spawn` tool: runs a task on a fresh child agent and returns the child's
 * final answer. With no `child` config the child runs on the parent run's
 * providers, model, tools and behavior; `child` fields replace those parts.
 * The child's events reach the parent's hooks as `child:*` (with `childId`
 * and `depth`); its stats land in the parent's `stats.children` and totals;
 * `spawn:before` is followed by `spawn:complete` or, when the child's run
 * fails, `spawn:error`. Tool state is not inherited: each child agent has its own.
 */
export function createSpawnTool<Schema extends OutputSchema | undefined = undefined>(
  options: SpawnToolOptions & { child?: ChildAgent & { behavior?: AgentBehavior & { schema?: Schema } } } = {},
): SpawnTool<SchemaOutput<Schema>> {
  // A NaN (a setting read with parseInt from an unset variable) compares false with everything: as `maxDepth` it
  // lifted the depth cap, as `maxConcurrent` it made every spawn call wait for a slot that never came.
  for (const key of ['maxDepth', 'maxConcurrent', 'timeoutMs'] as const) {
    const value = options[key]
    if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value)))
      throw new TypeError(`createSpawnTool: ${key} must be a number, got ${typeof value === 'number' ? 'NaN' : `a ${typeof value}`}`)
  }
  const maxDepth = options.maxDepth ?? 2
  const limit = Math.max(1, options.maxConcurrent ?? 4)
  const slots = new Map<string, Semaphore>()
  const state = createSpawnState(() => {
    let waiting = 0
    for (const semaphore of slots.values()) waiting += semaphore.waiting
    return waiting
  })

  // The records this tool reported, so `childrenOf` can pick them out of a stats tree.
  const reported = new WeakSet<ChildRunStats>()

  const input = z.object({
    task: z.string().min(1).describe('The complete task for the subagent'),
    model: z.string().optional().describe(options.models ? `One of: ${Object.keys(options.models).join(', ')}` : 'Model id for the subagent'),
    resume: z.string().optional().describe('Label of an earlier child to continue, e.g. "child-2"'),
  })

  const def = tool({
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
        return await runChild(options, ctx, { task, model, resume, depth }, state, reported)
      }
      finally {
        semaphore.release()
        if (semaphore.idle)
          slots.delete(ctx.runId)
      }
    },
  })
  // The schema in `child.behavior.schema` is what each recorded `output` passed.
  const childrenOf = (stats: AgentStats) => childRecords(stats).filter(child => reported.has(child)) as ChildRunStats<SchemaOutput<Schema>>[]
  // A child journals its own steps: a durable runtime must not wrap the whole call in one step.
  return Object.assign(def, { state: state.view, childrenOf, runsNestedAgent: true as const, [SPAWN_MAX_DEPTH]: maxDepth })
}

/** Every child record of a stats tree, depth first. */
function childRecords(stats: AgentStats): ChildRunStats[] {
  return (stats.children ?? []).flatMap(child => [child, ...childRecords(child.stats)])
}

interface ChildRequest { task: string, model?: string, resume?: string, depth: number }

async function runChild(options: SpawnToolOptions, ctx: ToolContext, request: ChildRequest, state: SpawnStateTracker, reported: WeakSet<ChildRunStats>): Promise<string> {
  const host = ctx.subagents
  const persist = options.persist !== false && ctx.session !== undefined
  const resumeRunId = request.resume === undefined ? undefined : findChildRun(ctx, request.resume)
  const setup = childSetup(options.child, ctx, request.depth, routeModel(options, request.model))
  const id = request.resume ?? host.nextChildLabel()
  const child = createAgent(mergeObjects(setup.agent, { session: persist ? ctx.session : undefined }))
  // The tracer of the parent writes into this object on `spawn:before`; the child's run gets what it wrote.
  const tracingContext: Record<string, string> = {}
  const spawn: SpawnHookContext = {
    runId: ctx.runId,
    depth: request.depth,
    parentRunId: ctx.parentRunId,
    parentCallId: ctx.parentCallId,
    id,
    task: request.task,
    callId: ctx.callId,
    model: setup.first.model,
    provider: setup.first.provider,
    resumesChildId: request.resume,
    tracingContext,
  }
  const progress = trackProgress(child.hooks)
  forwardChildEvents(child.hooks, host, id)
  host.emit('spawn:before', spawn)
  const running: SpawnedChild = { id, task: request.task, depth: request.depth, callId: ctx.callId, parentRunId: ctx.runId, ...setup.first, startedAt: ctx.effects.now() }
  state.start(running)

  let timedOut = false
  const stopChild = () => child.abort()
  ctx.signal.addEventListener('abort', stopChild, { once: true })
  const timer = options.timeoutMs === undefined
    ? undefined
    : startTimer(options.timeoutMs, () => {
        timedOut = true
        child.abort()
      })
  try {
    const stats = await child.run({
      prompt: request.task,
      ...setup.run,
      depth: request.depth,
      parentRunId: ctx.runId,
      parentCallId: ctx.callId,
      runLabel: id,
      resumeRunId,
      tracingContext,
      // The child's time, ids, calls and I/O go through the parent run's effects (a journal or a test's too).
      effects: ctx.effects,
    })
    const status: ChildRunStats['status'] = timedOut ? 'timeout' : stats.stopReason === 'aborted' ? 'aborted' : 'completed'
    const record: ChildRunStats = { id, task: request.task, stats, callId: ctx.callId, depth: request.depth, status }
    if (stats.output !== undefined)
      record.output = stats.output
    reported.add(record)
    host.reportChild(record)
    host.emit('spawn:complete', mergeObjects(spawn, { stats: record }))
    if (status !== 'completed')
      return `[${id} ${status === 'timeout' ? 'timed out' : 'was aborted'} after ${stats.turns} turn(s)]${stats.text ? `\n${stats.text}` : ''}`
    return stats.text || `[${id} finished without a text answer]`
  }
  catch (error) {
    // The child's turns so far still cost tokens: they count in the parent's totals like any child's.
    const stats = progress.stats(ctx.effects.now() - running.startedAt)
    const status: ChildRunStats['status'] = timedOut ? 'timeout' : ctx.signal.aborted ? 'aborted' : 'error'
    const record: ChildRunStats = { id, task: request.task, stats, callId: ctx.callId, depth: request.depth, status }
    reported.add(record)
    host.reportChild(record)
    host.emit('spawn:error', mergeObjects(spawn, { error, stats: record }))
    const what = status === 'error' ? 'failed' : status === 'timeout' ? 'timed out' : 'was aborted'
    throw new Error(`${id} ${what} after ${stats.turns} turn(s): ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  finally {
    timer?.clear()
    ctx.signal.removeEventListener('abort', stopChild)
    state.end(running)
  }
}

/**
 * What a child has used so far, for a child whose run throws (and so returns
 * no stats): its finished turns and the children it finished, folded the way
 * a run folds its own.
 */
function trackProgress(childHooks: ReturnType<typeof createAgent>['hooks']): { stats: (elapsed: number) => AgentStats } {
  const usage: TurnUsage[] = []
  const children: ChildRunStats[] = []
  childHooks.hook('usage', ({ usage: turn }) => void usage.push(turn))
  childHooks.hook('spawn:complete', ({ stats }) => void children.push(stats))
  childHooks.hook('spawn:error', ({ stats }) => void children.push(stats))
  return {
    stats: (elapsed) => {
      const stats: AgentStats = { turns: usage.length, totalIn: 0, totalOut: 0, totalCacheRead: 0, totalCacheCreation: 0, elapsed, turnUsage: [...usage], text: '', stopReason: 'aborted' }
      let cost = 0
      for (const turn of usage) {
        stats.totalIn += turn.input
        stats.totalOut += turn.output
        stats.totalCacheRead += turn.cacheRead ?? 0
        stats.totalCacheCreation += turn.cacheCreation ?? 0
        cost += turn.cost ?? 0
      }
      for (const { stats: child } of children) {
        stats.totalIn += child.totalIn
        stats.totalOut += child.totalOut
        stats.totalCacheRead += child.totalCacheRead
        stats.totalCacheCreation += child.totalCacheCreation
        cost += child.cost ?? 0
      }
      if (cost > 0)
        stats.cost = cost
      if (children.length > 0)
        stats.children = [...children]
      return stats
    },
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
      host.emit(`child:${name}` as never, mergeObjects(context, { childId }))
  })
}

/** The run id of the latest child run with this label, or an error the model can act on. */
function findChildRun(ctx: ToolContext, label: string): string {
  if (!ctx.session)
    throw new Error('resume needs the agent to have a session (children are recorded there)')
  const runs = ctx.session.runs.filter(run => run.label === label)
  const last = runs.at(-1)
  if (!last)
    throw new Error(`There is no earlier child labeled "${clipEcho(label)}" in this session`)
  return last.id
}

function routeModel(options: SpawnToolOptions, model: string | undefined): ModelTargetSpec | undefined {
  if (model === undefined)
    return undefined
  // Own keys only: the model writes `model`, and `constructor` or `__proto__` must not reach Object.prototype's members.
  const named = options.models && Object.hasOwn(options.models, model) ? options.models[model] : undefined
  if (options.models && named === undefined)
    throw new Error(`Unknown model choice "${clipEcho(model)}"; use one of: ${Object.keys(options.models).join(', ')}`)
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

  get waiting(): number {
    return this.waiters.length
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
