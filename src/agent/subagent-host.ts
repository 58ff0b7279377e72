import type { ChildRunStats } from '../core/stats'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentHookName } from '../hooks/hook-map'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import type { SubagentHost, SubagentParent } from '../tools/types'
import { fireHook } from '../hooks/bus'

/** The seam the `spawn` tool uses: events on this bus, child stats into this run, session-wide labels, what a child inherits. */
export function subagentHost(hooks: AgentHookBus, children: ChildRunStats[], session: Session | undefined, parent: SubagentParent, runsAtStart?: readonly SessionRun[]): SubagentHost {
  // A replay numbers from the runs its first execution found, not from the records that execution left behind.
  let lastLabel: number | undefined = runsAtStart ? highestLabel(runsAtStart) : undefined
  return {
    parent,
    emit: (name, ctx) => fireHook(hooks, name as AgentHookName, ctx as never),
    reportChild: child => children.push(child),
    nextChildLabel: () => {
      // Labels are unique within the session, so `resume: 'child-2'` names one run.
      lastLabel ??= highestLabel(session?.runs ?? [])
      lastLabel += 1
      return `child-${lastLabel}`
    },
  }
}

const CHILD_LABEL = /^child-(\d+)$/

function highestLabel(runs: readonly SessionRun[]): number {
  return runs.reduce((highest, record) => Math.max(highest, labelNumber(record.label)), 0)
}

function labelNumber(label: string | undefined): number {
  const match = label === undefined ? null : CHILD_LABEL.exec(label)
  return match ? Number(match[1]) : 0
}
