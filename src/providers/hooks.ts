import type { HookHandler, StreamHookContext } from '../core/hook-context'
import type { OAuthRefreshHookContext } from './oauth-hook'
import type { ProviderInputTransformation } from './types'

export type { OAuthCredentials, OAuthRefreshHookContext } from './oauth-hook'

/**
 * `provider:input-transformations`: the provider changed the input of this
 * turn before the model saw it (Anthropic dropping replayed thinking whose
 * binding check failed), so the model answered without that reasoning.
 */
export interface ProviderInputTransformationsContext extends StreamHookContext {
  /** The provider and model that served the turn. */
  provider: string
  model: string
  /** The entries as the provider reported them, in request order. */
  transformations: readonly ProviderInputTransformation[]
  /** How many of them removed a thinking block (`TurnUsage.thinkingDropped`, 0 when none). */
  thinkingDropped: number
}

/** The events providers report through the loop. */
export interface ProviderHooks {
  'provider:input-transformations': HookHandler<ProviderInputTransformationsContext>
  'oauth:refresh': HookHandler<OAuthRefreshHookContext>
}

/** The provider events by name; `satisfies` keeps it in step with `ProviderHooks`. */
export const PROVIDER_HOOK_NAMES = {
  'provider:input-transformations': true,
  'oauth:refresh': true,
} as const satisfies Record<keyof ProviderHooks, true>
