import type { ExecutionContext } from '../contexts/types'
import type { SessionTurn } from '../core/content'
import type { PolicyState } from '../core/run-state'
import type { AgentBehavior } from '../knobs/behavior'
import type { ActivatedPolicies } from '../loop/policy-runner'
import type { McpConnection } from '../mcp/types'
import type { BehaviorPolicy, PolicyRunView, PolicyToolsView } from '../policies/policy'
import type { ModelCatalogLayers } from '../providers/catalog/types'
import type { ModelTarget } from '../providers/model-targets'
import type { Provider } from '../providers/types'
import type { FrozenPromptSections } from '../session/system-freeze'
import type { ToolRegistry } from '../tools/registry'
import type { ToolMap } from '../tools/types'
import type { AgentOptions, AgentProfile, AgentRunOptions } from './options'
import { mergeObjects } from '../core/merge-objects'
import { resolveBehavior } from '../knobs/behavior'
import { activatePolicies, policyTools } from '../loop/policy-runner'
import { resolveModelTargets } from '../providers/model-targets'
import { composeSystemPrompt } from '../session/system-freeze'
import { MCP_INSTRUCTIONS_SECTION, mcpInstructionsSection } from './mcp-loader'
import { DEFAULT_SYSTEM_PROMPT } from './options'
import { prepareRunTools } from './run-tools'
import { planToolDisclosure, TOOL_CATALOG_SECTION } from './tool-disclosure'

/**
 * The run plan: everything a run is set up from, decided once before its first
 * turn, by one function for every caller (`run()` and `stream()`, the context
 * breakdown, the policy test harness). It reads settings in layers, lowest
 * first: the agent's, a profile's (`run({ profile })`), the run's own.
 */

/** The agent's settings a plan reads: the lowest layer. */
export type PlanAgentLayer = Pick<AgentOptions, 'system' | 'tools' | 'toolAliases' | 'behavior' | 'durable'> & {
  /** The agent's providers; without any (the policy test harness), the plan has no targets. */
  readonly provider?: AgentOptions['provider']
}

/** The run's settings a plan reads: the highest layer, and the profile it runs as. */
export type PlanRunLayer = Pick<AgentRunOptions, 'system' | 'tools' | 'behavior' | 'model' | 'profile'>

/** What a run is planned from. Nothing in it is connected or loaded by the plan. */
export interface RunPlanInput {
  readonly agent: PlanAgentLayer
  readonly run?: PlanRunLayer
  /**
   * The agent's MCP connection as this run sees it, already connected: the
   * plan is synchronous, so the caller connects first (bounded by the run's
   * deadlines) and hands the result in.
   */
  readonly mcp?: McpConnection
  /** The turns the run starts from: tools they already called count as loaded (lazy disclosure). */
  readonly history?: readonly SessionTurn[]
  /** The agent's policies in run order (`agentPolicies`). */
  readonly policies: readonly BehaviorPolicy[]
  readonly execution: ExecutionContext
}

/** A run's plan. */
export interface RunPlan {
  /** The knobs, agent → profile → run. */
  readonly behavior: AgentBehavior
  /** Each layer's model catalog, kept apart so each is consulted in turn. */
  readonly catalogs: ModelCatalogLayers
  /** Where turns go, in fallback order (empty without providers). */
  readonly targets: readonly ModelTarget[]
  /** Wire names by canonical name: MCP's generated ones under the agent's explicit ones. */
  readonly aliases?: Record<string, string>
  /** The run's tools before disclosure and policy tools: what a subagent inherits. */
  readonly toolSet?: ToolMap
  /** The registry the model is offered: `toolSet`, disclosure's tools, the policies' tools, the task tools. */
  readonly tools: ToolRegistry
  /** The sections appended to the base prompt, by name, in order: tool catalog, MCP instructions, the policies'. */
  readonly sections: FrozenPromptSections
  /** The system prompt composed fresh: the base prompt and its sections (a frozen prompt may be sent instead). */
  readonly system: string
  /** The policies that may take part, in run order; which do is decided at activation (`activatePlan`). */
  readonly policies: readonly BehaviorPolicy[]
}

const NOTHING_DEFERRED: ReadonlySet<string> = new Set()

/** The knobs of a run, agent → profile → run: each layer merged over the one below (see `resolveBehavior`). */
export function planBehavior(agent: PlanAgentLayer, run: PlanRunLayer = {}): AgentBehavior {
  const profile = run.profile?.behavior
  const base = profile === undefined ? agent.behavior : resolveBehavior(agent.behavior, profile)
  const behavior = resolveBehavior(base, run.behavior)
  // A replay may happen on another worker: background tasks that die with this process stay off unless asked for.
  if (agent.durable?.mode === 'replay' && behavior.disableBackgroundTasks === undefined)
    return mergeObjects(behavior, { disableBackgroundTasks: 'non-durable' })
  return behavior
}

/**
 * Plan one run. Synchronous and free of I/O: the same input gives the same
 * plan. Configuration mistakes (a policy tool or section whose name is
 * taken, colliding aliases, a bad knob) throw here, before the run starts.
 */
export function planRun(input: RunPlanInput): RunPlan {
  const { agent, run = {}, mcp } = input
  const profile: AgentProfile | undefined = run.profile
  const behavior = planBehavior(agent, run)
  // Explicit aliases win over generated ones; a run's own tools replace everything, MCP tools included.
  const aliases = mcp ? mergeObjects(mcp.aliases, agent.toolAliases) : agent.toolAliases
  const layerTools = profile?.tools ?? agent.tools
  const toolSet = run.tools ?? (mcp ? mergeObjects(layerTools, mcp.tools) : layerTools)
  const replaced = run.tools !== undefined
  const disclosure = planToolDisclosure(toolSet, aliases, mcp, behavior, input.history ?? [], replaced)
  const ownTools = policyTools(input.policies, behavior, {
    tools: disclosure.tools ?? {},
    ...(aliases === undefined ? {} : { aliases }),
    replaced,
    deferred: disclosure.disclosure?.deferred ?? NOTHING_DEFERRED,
    load: disclosure.load,
  })
  const tools = prepareRunTools(ownTools ? mergeObjects(disclosure.tools, ownTools) : disclosure.tools, aliases, behavior, input.execution, disclosure.disclosure)
  const catalogs = { run: run.behavior?.modelCatalog, profile: profile?.behavior?.modelCatalog, agent: agent.behavior?.modelCatalog }
  const providers = agent.provider === undefined ? [] : providerList(agent.provider)
  const targets = providers.length === 0 ? [] : resolveModelTargets(providers, run.model, catalogs)
  const builtIn = mergeObjects(disclosure.sections, mcpInstructionsSection(mcp, behavior))
  const sections = withPolicySections(builtIn, input.policies, behavior, tools)
  const base = run.system ?? profile?.system ?? agent.system ?? DEFAULT_SYSTEM_PROMPT
  return {
    behavior,
    catalogs,
    targets,
    ...(aliases === undefined ? {} : { aliases }),
    ...(toolSet === undefined ? {} : { toolSet }),
    tools,
    sections,
    system: composeSystemPrompt(base, sections),
    policies: input.policies,
  }
}

/**
 * Activate the plan's policies on the live run: each says whether it takes
 * part (`enabled` reads the run, which only exists once the plan does), the
 * states of those that do are seeded (or restored), their stages collected.
 */
export function activatePlan(plan: RunPlan, view: PolicyRunView, restored?: Readonly<Record<string, PolicyState>>): ActivatedPolicies {
  return activatePolicies(plan.policies, plan.behavior, view, restored)
}

/** Names of the sections the plan itself may add, refused to policies even in a run that has none of them. */
const BUILT_IN_SECTIONS: ReadonlySet<string> = new Set([TOOL_CATALOG_SECTION, MCP_INSTRUCTIONS_SECTION])

/**
 * The built-in sections, then each policy's (`BehaviorPolicy.sections`) in
 * policy order. A name already taken is a `TypeError`: one section would
 * silently replace another, and a text that is not a string could not be sent.
 */
function withPolicySections(builtIn: FrozenPromptSections, policies: readonly BehaviorPolicy[], behavior: AgentBehavior, tools: PolicyToolsView): FrozenPromptSections {
  let sections: Record<string, string> | undefined
  for (const policy of policies) {
    const own = policy.sections?.(behavior, tools)
    if (!own)
      continue
    sections ??= { ...builtIn }
    for (const [name, text] of Object.entries(own)) {
      if (typeof text !== 'string')
        throw new TypeError(`Policy "${policy.name}" gives prompt section "${name}" a ${typeof text}; a section is a string`)
      if (Object.hasOwn(sections, name) || BUILT_IN_SECTIONS.has(name))
        throw new TypeError(`Policy "${policy.name}" adds a prompt section named "${name}", but the run already has (or may have) a section of that name; rename one of them`)
      sections[name] = text
    }
  }
  return sections ?? builtIn
}

/** The agent's providers as a list. */
export function providerList(provider: AgentOptions['provider']): readonly Provider[] {
  return Array.isArray(provider) ? provider : [provider as Provider]
}
