/**
 * A run's state and its session record: which saved state a new `run()`
 * call continues, the state it starts from, the read state a session handle
 * picks up in a new process, and the copy saved with the run record. See
 * docs/architecture/run-state.md.
 */

import type { RunState } from '../core/run-state'
import type { RunContext, RunLegStart } from '../loop/run-context'
import type { ModelTarget } from '../providers/model-targets'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import type { AgentRunOptions } from './options'
import { checkRunState, createRunState } from '../loop/run-state'
import { readStateSnapshot, restoreReadState, tracksReadState } from '../tools/read-state'

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
export function stateToContinue(session: Session, options: AgentRunOptions): RunState | undefined {
  let record: SessionRun | undefined
  if (options.resumeRunId !== undefined)
    record = session.runs.find(run => run.id === options.resumeRunId)
  else if (options.prompt === undefined)
    record = session.runs.findLast(run => run.parentRunId === undefined)
  if (!record?.state)
    return undefined
  const unfinished = record.stopReason === 'paused' || record.status === 'running'
  if (!unfinished && options.resumeRunId === undefined)
    return undefined
  const saved = checkRunState(record.state, { runId: record.id, sessionId: session.id })
  return unfinished ? saved : { ...createRunState(saved.target), policies: {} }
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
  return {
    ...createRunState(target),
    turnCount: continued.turnCount,
    pending: [...continued.pending],
    usage: [...continued.usage],
    sideCalls: [...continued.sideCalls],
    children: [...continued.children],
  }
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
export function seedReadState(session: Session): void {
  if (tracksReadState(session))
    return
  let newest: SessionRun | undefined
  for (const record of session.runs) {
    const seq = record.state?.read?.seq
    if (typeof seq === 'number' && seq > (newest?.state?.read?.seq ?? -1))
      newest = record
  }
  if (newest)
    restoreReadState(session, checkRunState(newest.state, { runId: newest.id, sessionId: session.id }).read!)
}

/** The run state as saved now: a copy (the run goes on changing its own), with the session's read state. */
export function savedState(run: RunContext): RunState {
  const state = run.state
  const read = run.session ? readStateSnapshot(run.session) : undefined
  return {
    ...state,
    target: { ...state.target },
    pending: [...state.pending],
    usage: [...state.usage],
    sideCalls: [...state.sideCalls],
    children: [...state.children],
    policies: { ...state.policies },
    ...(read ? { read } : {}),
  }
}
