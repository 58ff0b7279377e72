/**
 * The model metadata a turn's request carries, from the host's catalog
 * layers (`behavior.modelCatalog` of the run, then of the agent, then
 * `setModelCatalog()`), for the target the turn is sent to. Resolved per
 * attempt: a fallback to another provider or model reads that target's entry.
 */

import type { RunContext } from './run-context'
import type { TurnRequest } from './stream-turn'
import { extendContext } from '../hooks/context'
import { resolveModelOverrides } from '../providers/catalog/catalog'

/**
 * The request for the run's current target: its model, the catalog's output
 * ceiling when the run sets no `maxTokens`, and the catalog's word on
 * reasoning support. Without host entries the request is unchanged.
 */
export function requestForTarget(run: RunContext, request: TurnRequest): TurnRequest {
  const info = resolveModelOverrides(run.provider.name, run.model, run.catalogs)
  const fields: Pick<TurnRequest, 'model' | 'maxTokens' | 'reasoning'> = { model: run.model }
  if (request.maxTokens === undefined && info.maxTokens !== undefined)
    fields.maxTokens = info.maxTokens
  if (info.reasoning !== undefined)
    fields.reasoning = info.reasoning
  return extendContext(request, fields)
}
