import type { AgentHookBus } from '../hooks/bus'
import type { SkillLoadReport, SkillSet } from '../skills/skill-set'
import { callHookBounded } from '../hooks/bus'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'

/**
 * Read an agent's skills before its first run plans (the catalog and the
 * tools need them). A skill left out fires `skills:skip` and a process
 * warning (code `ZIDANE_SKILL_SKIPPED`), a catalog over its budget fires
 * `skills:overflow` and a warning (`ZIDANE_SKILL_CATALOG_OVERFLOW`): never a
 * silent drop, even for a host that listens to no hook. Hooks are awaited,
 * each bounded by the agent's `hookTimeoutMs`.
 */
export async function loadAgentSkills(set: SkillSet, hooks: AgentHookBus, hookTimeoutMs: number | undefined): Promise<void> {
  if (set.ready)
    return
  const bound = { timeoutMs: hookTimeoutMs ?? BEHAVIOR_DEFAULTS.hookTimeoutMs, failClosed: false }
  const report: SkillLoadReport = {
    async skip(skip) {
      process.emitWarning(`Skill left out (${skip.path}${skip.name === undefined ? '' : `, "${skip.name}"`}): ${skip.reason}`, { code: 'ZIDANE_SKILL_SKIPPED' })
      await callHookBounded(hooks, 'skills:skip', { ...skip }, bound).catch(() => {})
    },
    async overflow(catalog, maxChars) {
      process.emitWarning(`The skills catalog is over its budget of ${maxChars} characters: ${catalog.named.length} skills are listed by name only and ${catalog.unlisted.length} are not listed; all stay reachable with skills_use { query }`, { code: 'ZIDANE_SKILL_CATALOG_OVERFLOW' })
      await callHookBounded(hooks, 'skills:overflow', { described: catalog.described, named: catalog.named, unlisted: catalog.unlisted, maxChars }, bound).catch(() => {})
    },
  }
  await set.load(report)
}
