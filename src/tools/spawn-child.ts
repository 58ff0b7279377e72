import type { AgentOptions, AgentRunOptions } from '../agent/options'
import type { ExecutionContext } from '../contexts/types'
import type { AgentBehavior } from '../knobs/behavior'
import type { ModelTargetSpec } from '../providers/model-targets'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { ToolContext, ToolMap } from './types'
import { resolveBehavior } from '../knobs/behavior'
import { resolveModelTargets } from '../providers/model-targets'

/**
 * What a subagent is made of. Every field is optional: what is left out comes
 * from the parent run (see `createSpawnTool`).
 */
export interface ChildAgent {
  /** The child's providers. Default: the parent agent's, with the parent run's model. */
  provider?: Provider | readonly Provider[]
  /**
   * The child's tools. Default: the parent run's tools, its `spawn` tools
   * only while a child may still spawn (below `maxDepth`). Include a `spawn`
   * tool here to let a child with its own tools spawn in turn.
   */
  tools?: ToolMap
  /** The child's system prompt. Default: the SDK's default prompt (the parent's is written for the parent). */
  system?: string
  /** Merged over the parent run's behavior, key by key (`extensions` too), as a run's behavior merges over its agent's. */
  behavior?: AgentBehavior
  /** Default: the parent run's aliases when the tools are inherited, none otherwise. */
  toolAliases?: Record<string, string>
  /** The child's reasoning level. Default: the parent run's. */
  thinking?: ThinkingLevel
  /** Where the child's tools run. Default: the parent's execution context (same workspace). */
  execution?: ExecutionContext
}

/** A child ready to create and run. */
export interface ChildSetup {
  agent: Omit<AgentOptions, 'session'>
  run: Pick<AgentRunOptions, 'model' | 'thinking'>
  /** Where the child's first turn goes, for `spawn:before`. */
  first: { model: string, provider: string }
}

/** Marks a spawn tool with its `maxDepth`, so an inherited tool set can drop spawn tools a child may not use. */
export const SPAWN_MAX_DEPTH: unique symbol = Symbol('zidane.spawn.maxDepth')

/**
 * Resolve a child from the tool's config and the parent run: `child` fields
 * win, the parent run fills the rest. The model is the call's choice, else the
 * parent run's (only when the providers are inherited too: another provider
 * may not serve it), else each provider's default.
 */
export function childSetup(child: ChildAgent | undefined, ctx: ToolContext, depth: number, target: ModelTargetSpec | undefined): ChildSetup {
  const parent = ctx.subagents.parent
  const ownProvider = child?.provider !== undefined
  if (!ownProvider && !parent)
    throw new TypeError('spawn needs `child.provider`: this tool context carries no parent run to inherit from')
  const providers = ownProvider ? providerList(child!.provider!) : parent!.providers
  const model = target ? [target] : ownProvider ? undefined : parent!.model
  const first = resolveModelTargets(providers, model)[0]
  const ownTools = child?.tools !== undefined
  return {
    agent: {
      provider: providers,
      tools: ownTools ? child!.tools : spawnableTools(parent?.tools, depth),
      system: child?.system,
      // The parent's schema shapes the parent's answer: a child has one only when `child.behavior` gives it.
      behavior: resolveBehavior(withoutSchema(ctx.behavior), child?.behavior),
      toolAliases: child?.toolAliases ?? (ownTools ? undefined : parent?.toolAliases),
      execution: child?.execution ?? ctx.execution,
      ...(parent?.durable ? { durable: parent.durable } : {}),
    },
    run: { model, thinking: child?.thinking ?? parent?.thinking },
    first: { model: first.model, provider: first.provider.name },
  }
}

/** The inherited tools minus spawn tools that would refuse a child at `depth` (its children would sit at `depth + 1`). */
function spawnableTools(tools: ToolMap | undefined, depth: number): ToolMap | undefined {
  if (!tools)
    return tools
  const kept = Object.entries(tools).filter(([, def]) => {
    const maxDepth = (def as { [SPAWN_MAX_DEPTH]?: number })[SPAWN_MAX_DEPTH]
    return maxDepth === undefined || depth + 1 <= maxDepth
  })
  return kept.length === Object.keys(tools).length ? tools : Object.fromEntries(kept)
}

function withoutSchema(behavior: AgentBehavior): AgentBehavior {
  if (behavior.schema === undefined)
    return behavior
  const { schema: _parents, ...rest } = behavior
  return rest
}

function providerList(provider: Provider | readonly Provider[]): readonly Provider[] {
  return Array.isArray(provider) ? provider : [provider as Provider]
}
