/**
 * A run's state and its session record: which saved state a new `run()`
 * call continues, the state it starts from, the read state a session handle
 * picks up in a new process, and the copy saved with the run record. See
 * docs/architecture/run-state.md.
 */

import type { RunState } from '../core/run-state'
import type { TurnUsage } from '../core/stats'
import type { RunCheckpoint, RunContext, RunLegStart } from '../loop/run-context'
import type { ModelTarget } from '../providers/model-targets'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import type { AgentRunOptions } from './options'
import { mergeObjects } from '../core/merge-objects'
import { policyStateWrites } from '../loop/policy-runner'
import { checkRunState, createRunState } from '../loop/run-state'
import { readStateSnapshot, readStateVersion, restoreReadState, tracksReadState } from '../tools/read-state'

/**
 * The saved state a run continues, checked (`RunStateError` names a broken
 * field and how to recover). A run left unfinished (paused, or still
 * `running` after a crash) is continued whole: by `run()` without a prompt
 * when it is the last top-level run, and by `resumeRunId`. `resumeRunId` on a
 * run that finished gives it a new task on the same conversation: only its
 * serving target carries over, its counters and budgets start fresh. A run
 * with a prompt of its own starts fresh. Records saved without a state
 * (older ones) restore nothing.
 */
export function stateToContinue(session: Session, options: AgentRunOptions, runs: readonly SessionRun[] = session.runs): RunState | undefined {
  const record = recordToContinue(session, options, runs)
  if (!record?.state)
    return undefined
  const unfinished = isUnfinished(record)
  if (!unfinished && options.resumeRunId === undefined)
    return undefined
  const saved = checkRunState(record.state, { runId: record.id, sessionId: session.id })
  return unfinished ? withTurnUsage(saved, session, record.id) : mergeObjects(createRunState(saved.target), { policies: {} })
}

/**
 * The record a run picks up: the one `resumeRunId` names, else (without a
 * prompt) the last top-level run. `runs` defaults to the session's; a replay
 * passes the runs as its first execution found them.
 */
export function recordToContinue(session: Session, options: AgentRunOptions, runs: readonly SessionRun[] = session.runs): SessionRun | undefined {
  if (options.resumeRunId !== undefined)
    return runs.find(run => run.id === options.resumeRunId)
  if (options.prompt === undefined)
    return lastTopLevelRun(runs)
  return undefined
}

/** The last run started at the top level of a session (not a subagent's). */
export function lastTopLevelRun(runs: readonly SessionRun[]): SessionRun | undefined {
  return runs.findLast(run => run.parentRunId === undefined)
}

/**
 * A run that stopped with work left: paused, suspended (by `agent.suspend()`
 * or a pending approval), or still `running` in its record (its process died).
 */
export function isUnfinished(record: SessionRun): boolean {
  return record.stopReason === 'paused' || record.stopReason === 'suspended' || record.status === 'running'
}

/**
 * A boundary record's state made whole: the usage entries it left in the
 * run's assistant turns (`usageInTurns`) read back from the session. Turns
 * the session no longer holds give what is left (budgets then count a little
 * less of a crashed leg, rather than the run refusing to go on).
 */
function withTurnUsage(saved: RunState, session: Session, runId: string): RunState {
  const { usageInTurns: wanted = 0, ...rest } = saved
  if (wanted === 0)
    return saved
  const usages: TurnUsage[] = []
  for (const turn of session.turnsOfRun(runId)) {
    if (turn.role === 'assistant' && turn.usage)
      usages.push(turn.usage)
  }
  return mergeObjects(rest, { usage: [...saved.usage, ...usages.slice(Math.max(0, usages.length - wanted))] })
}

/**
 * The state this run starts from: a fresh one, or a copy of the continued
 * run's. The stop result is not carried (a continuation ends on its own), and
 * the serving target is found again in this run's targets: at its index when
 * that still names the same provider and model, else wherever they are, else
 * the first target (the list changed).
 */
export function startState(continued: RunState | undefined, targets: readonly ModelTarget[]): RunState {
  const first = { index: 0, provider: targets[0].provider.name, model: targets[0].model }
  if (!continued)
    return createRunState(first)
  const saved = continued.target
  const same = (target: ModelTarget | undefined) => target !== undefined && target.provider.name === saved.provider && target.model === saved.model
  const index = same(targets[saved.index]) ? saved.index : targets.findIndex(same)
  const target = index === -1 ? first : { index, provider: saved.provider, model: saved.model }
  return mergeObjects(createRunState(target), { turnCount: continued.turnCount, pending: [...continued.pending], usage: [...continued.usage], sideCalls: [...continued.sideCalls], children: [...continued.children] }, (continued.approvals ? { approvals: continued.approvals.map(approval => ({ ...approval })) } : {}))
}

export function legStartOf(state: RunState): RunLegStart {
  return { turns: state.turnCount, usage: state.usage.length, sideCalls: state.sideCalls.length, children: state.children.length }
}

/**
 * What the model has read in this session is per session: a handle this
 * process has not tracked yet (loaded after a restart or a crash) takes it
 * from the newest read state saved with any of its runs (the highest
 * sequence number: parent and subagent runs share it).
 */
export function seedReadState(session: Session, runs: readonly SessionRun[] = session.runs): void {
  if (tracksReadState(session))
    return
  let newest: SessionRun | undefined
  for (const record of runs) {
    const seq = record.state?.read?.seq
    if (typeof seq === 'number' && seq > (newest?.state?.read?.seq ?? -1))
      newest = record
  }
  if (newest)
    restoreReadState(session, checkRunState(newest.state, { runId: newest.id, sessionId: session.id }).read!)
}

/**
 * The run state as saved now: a copy (the run goes on changing its own), with
 * the session's read state. At a turn boundary (`atBoundary`), this leg's usage
 * is left in its assistant turns, written in the same write (`usageInTurns`).
 */
export function savedState(run: RunContext, atBoundary = false): RunState {
  const state = run.state
  const read = run.session ? readStateSnapshot(run.session) : undefined
  const inherited = run.legStart.usage
  const inTurns = atBoundary ? state.usage.length - inherited : 0
  return mergeObjects(mergeObjects(state, { target: { ...state.target }, pending: [...state.pending], usage: inTurns > 0 ? state.usage.slice(0, inherited) : [...state.usage] }, (inTurns > 0 ? { usageInTurns: inTurns } : {}), { sideCalls: [...state.sideCalls], children: [...state.children], policies: { ...state.policies } }), (read ? { read } : {}), (state.approvals ? { approvals: state.approvals.map(approval => ({ ...approval })) } : {}))
}

/**
 * The run's checkpoint: the record with the state, handed to the session
 * with each boundary's turns, and whether anything moved since. The check
 * compares what can move by reference or count, so a turn that changed
 * nothing after its turns were written costs no second write.
 */
export function runCheckpoint(run: RunContext, record: SessionRun, session: Session): RunCheckpoint {
  let saved: RunState | undefined
  let savedRead = -1
  let savedWrites = -1
  const take = (): SessionRun => {
    saved = savedState(run, true)
    savedRead = readStateVersion(session)
    savedWrites = policyStateWrites(run.state)
    return mergeObjects(record, { state: saved })
  }
  return {
    record: take,
    changed: () => saved === undefined
      || savedRead !== readStateVersion(session)
      || savedWrites !== policyStateWrites(run.state)
      || stateMoved(run.state, saved),
    save: () => session.saveRun(take()),
  }
}

/** Whether `now` differs from the copy `saved` in what the run itself moves (arrays only grow or are drained; policy states are counted apart). */
function stateMoved(now: RunState, saved: RunState): boolean {
  if (now.turnCount !== saved.turnCount || now.target.index !== saved.target.index || now.stopResult !== saved.stopResult)
    return true
  if (now.usage.length !== saved.usage.length + (saved.usageInTurns ?? 0) || now.sideCalls.length !== saved.sideCalls.length || now.children.length !== saved.children.length)
    return true
  return now.pending.length !== saved.pending.length || now.pending.some((message, i) => message !== saved.pending[i])
}
