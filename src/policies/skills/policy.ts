import type { SkillSet } from '../../skills/skill-set'
import type { BehaviorPolicy, CallDecision, PhaseResult } from '../policy'
import { entryAllows } from './allowed-tools'
import { SKILLS_READ, SKILLS_USE, skillTools } from './tools'

/** Name of the skills policy, and of its prompt section. */
export const SKILLS_POLICY = 'skills'
export const SKILLS_SECTION = 'skills'

/** The skills events, known to every agent's hook bus (a host may register them whether or not it has skills). */
export const SKILLS_EVENTS = ['skills:activate', 'skills:deactivate', 'skills:skip', 'skills:overflow'] as const

/** One active skill: which call activated it. */
interface ActiveSkill {
  readonly name: string
  readonly callId: string
}

/**
 * The policy's state, plain JSON on the run state: the skills active in this
 * run, in activation order. It is saved at each turn boundary, so a paused or
 * resumed run keeps its skills (and their allowed-tools gate).
 */
export interface SkillsPolicyState {
  readonly active: readonly ActiveSkill[]
}

/**
 * The skills of one agent as a policy. It brings `skills_use` and
 * `skills_read`, the frozen `skills` prompt section (the catalog), records an
 * activation when a `skills_use { name }` call succeeds (`skills:activate`),
 * gates every other call by the allowed-tools of the active skills, and at
 * run end fires `skills:deactivate` for each (awaited, `hookTimeoutMs`).
 *
 * The gate: while at least one active skill declares `allowed-tools`, a call
 * passes when an entry of any of those skills admits it (the active skills
 * together need the union of their tools); skills without the field widen
 * nothing. `skills_use` and `skills_read` always pass.
 */
export function skillsPolicy(set: SkillSet): BehaviorPolicy<SkillsPolicyState> {
  const ready = () => set.ready && set.ready.list.length > 0 ? set.ready : undefined
  return {
    name: SKILLS_POLICY,
    events: SKILLS_EVENTS,
    enabled: () => ready() !== undefined,
    initialState: () => ({ active: [] }),
    tools: () => {
      const skills = ready()
      return skills ? skillTools(skills) : undefined
    },
    sections: () => {
      const skills = ready()
      return skills ? { [SKILLS_SECTION]: skills.catalog.text } : undefined
    },
    gateCall({ state, call }): PhaseResult<CallDecision, SkillsPolicyState> | undefined {
      if (call.name === SKILLS_USE || call.name === SKILLS_READ)
        return undefined
      const restricting = state.active
        .map(active => ready()?.byName.get(active.name))
        .filter(skill => skill?.allowedTools !== undefined)
      if (restricting.length === 0)
        return undefined
      if (restricting.some(skill => skill!.allowedTools!.some(entry => entryAllows(entry, call))))
        return undefined
      const names = restricting.map(skill => `"${skill!.name}"`)
      const owner = names.length === 1 ? `skill ${names[0]}` : `skills ${names.join(', ')}`
      return { decision: { type: 'block', reason: `"${call.displayName}" is not in the allowed-tools of ${owner}` } }
    },
    result({ state, call, isError, answer }) {
      if (call.name !== SKILLS_USE || isError || answer.kind !== 'ran')
        return undefined
      const name = call.input.name
      const skills = ready()
      const skill = typeof name === 'string' ? skills?.byName.get(name) : undefined
      if (!skill || state.active.some(active => active.name === skill.name))
        return undefined
      const reason = call.parentToolCallId !== undefined ? 'nested' : skills!.catalog.described.includes(skill.name) ? 'catalog' : 'search'
      const rationale = typeof call.input.reason === 'string' && call.input.reason.trim() !== '' ? call.input.reason.trim() : undefined
      return {
        state: { active: [...state.active, { name: skill.name, callId: call.callId }] },
        events: [{
          hook: 'skills:activate',
          context: {
            name: skill.name,
            callId: call.callId,
            reason,
            ...(rationale === undefined ? {} : { rationale }),
            ...(skill.allowedTools === undefined ? {} : { allowedTools: skill.allowedTools }),
          },
        }],
      }
    },
    runEnd({ state, stopReason }) {
      if (state.active.length === 0)
        return undefined
      return {
        state: { active: [] },
        events: state.active.map(active => ({ hook: 'skills:deactivate' as const, context: { name: active.name, ...(stopReason === undefined ? {} : { stopReason }) } })),
      }
    },
  }
}
