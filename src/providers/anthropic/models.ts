import { mergeObjects } from '../../core/merge-objects'
/**
 * What the provider knows about each Claude model: output and context limits,
 * which thinking modes and effort levels the API accepts, and list prices.
 *
 * Limits and prices as of 2026-11-30, from the Claude platform docs (the
 * "Pricing" page and each model's overview page). Prices are USD per million
 * tokens at standard speed, global inference, batch discount not applied.
 * Unless an entry says otherwise, a cache read costs 0.1x input, a 5-minute
 * cache write 1.25x and a 1-hour cache write 2x (Anthropic's standard ratios).
 *
 * Not listed, so sent with generic defaults and priced as unknown (no cost):
 * `claude-fable-5-2` and `claude-mythos-5-2` (in the SDK's model list, but no
 * published limits or prices were available to check) and
 * `claude-mythos-preview` (invitation-only, deprecated).
 */

/** `output_config.effort` values, weakest first. */
export const ANTHROPIC_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const
/** An `output_config.effort` value the Messages API accepts. */
export type AnthropicEffort = typeof ANTHROPIC_EFFORTS[number]

/** USD per million tokens. */
export interface AnthropicPriceRates {
  input: number
  output: number
  cacheRead: number
  cacheWrite5m: number
  cacheWrite1h: number
}

export interface AnthropicPrice extends AnthropicPriceRates {
  /** A second price band for requests whose whole prompt (input + cache reads + cache writes) is larger. */
  longPrompt?: AnthropicPriceRates & { aboveTokens: number }
}

/** What the provider knows about one Claude model: limits and supported features. */
export interface AnthropicModelInfo {
  contextWindow: number
  /** Largest `max_tokens` the model accepts; sent when the run sets no `maxTokens`. */
  maxOutput: number
  /** Accepts `thinking: { type: 'adaptive' }`. */
  adaptiveThinking: boolean
  /** Accepts `thinking: { type: 'enabled', budget_tokens }` (newer models answer 400). */
  manualThinkingBudget: boolean
  /** Effort levels `output_config.effort` accepts; empty when the field is rejected. */
  efforts: readonly AnthropicEffort[]
  price: AnthropicPrice
}

/** `max_tokens` for a model missing from the table: every current model accepts at least this much. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384

/** Rates derived from input/output with the standard cache ratios, optionally overridden. */
function rates(input: number, output: number, overrides: Partial<AnthropicPriceRates> = {}): AnthropicPriceRates {
  return {
    input,
    output,
    cacheRead: input * 0.1,
    cacheWrite5m: input * 1.25,
    cacheWrite1h: input * 2,
    ...overrides,
  }
}

const ALL_EFFORTS = ANTHROPIC_EFFORTS
/** The 4.6 generation predates `xhigh`. */
const EFFORTS_BEFORE_XHIGH: readonly AnthropicEffort[] = ['low', 'medium', 'high', 'max']

/** Adaptive-only models: `enabled` budgets are rejected with a 400. */
function adaptiveOnly(contextWindow: number, maxOutput: number, price: AnthropicPrice): AnthropicModelInfo {
  return { contextWindow, maxOutput, adaptiveThinking: true, manualThinkingBudget: false, efforts: ALL_EFFORTS, price }
}

const FABLE_5_1_PRICE = rates(10, 50, { cacheRead: 0.25 })
const FABLE_5_PRICE = rates(10, 50)

/** Keyed by the undated model id; dated snapshots (`…-20251001`) resolve to their entry. */
const MODEL_TABLE: Readonly<Record<string, AnthropicModelInfo>> = {
  // Mythos-class: adaptive thinking is always on. 5.1 cut cache reads to 0.025x.
  'claude-fable-5-1': adaptiveOnly(1_000_000, 128_000, FABLE_5_1_PRICE),
  'claude-mythos-5-1': adaptiveOnly(1_000_000, 128_000, FABLE_5_1_PRICE),
  'claude-fable-5': adaptiveOnly(1_000_000, 128_000, FABLE_5_PRICE),
  'claude-mythos-5': adaptiveOnly(1_000_000, 128_000, FABLE_5_PRICE),

  // Opus 5.5: $4/$20 with cache reads at 0.05x.
  'claude-opus-5-5': adaptiveOnly(1_000_000, 128_000, rates(4, 20, { cacheRead: 0.2 })),
  'claude-opus-5': adaptiveOnly(1_000_000, 128_000, rates(5, 25)),
  'claude-opus-4-8': adaptiveOnly(1_000_000, 128_000, rates(5, 25)),
  'claude-opus-4-7': adaptiveOnly(1_000_000, 128_000, rates(5, 25)),
  // 4.6 accepts both thinking modes (manual budgets are deprecated there).
  'claude-opus-4-6': { contextWindow: 1_000_000, maxOutput: 128_000, adaptiveThinking: true, manualThinkingBudget: true, efforts: EFFORTS_BEFORE_XHIGH, price: rates(5, 25) },
  // Deprecated (end of life 2027-01-22): manual budgets only; effort without xhigh/max.
  'claude-opus-4-5': { contextWindow: 200_000, maxOutput: 64_000, adaptiveThinking: false, manualThinkingBudget: true, efforts: ['low', 'medium', 'high'], price: rates(5, 25) },

  // Sonnet 5.5: cache reads cut to 0.05x on 2026-10-07.
  'claude-sonnet-5-5': adaptiveOnly(1_000_000, 128_000, rates(2, 10, { cacheRead: 0.1 })),
  'claude-sonnet-5': adaptiveOnly(1_000_000, 128_000, rates(2, 10)),
  'claude-sonnet-4-6': { contextWindow: 1_000_000, maxOutput: 64_000, adaptiveThinking: true, manualThinkingBudget: true, efforts: EFFORTS_BEFORE_XHIGH, price: rates(3, 15) },
  // Deprecated (end of life 2026-11-30): manual budgets only, no effort field.
  'claude-sonnet-4-5': { contextWindow: 200_000, maxOutput: 64_000, adaptiveThinking: false, manualThinkingBudget: true, efforts: [], price: rates(3, 15) },

  // Haiku 5.5 bills by prompt size: every token of a request whose prompt tops 100k costs the higher band.
  'claude-haiku-5-5': adaptiveOnly(1_000_000, 128_000, mergeObjects(rates(0.1, 0.5), { longPrompt: { aboveTokens: 100_000, ...rates(0.5, 2.5) } })),
  'claude-haiku-4-5': { contextWindow: 200_000, maxOutput: 64_000, adaptiveThinking: false, manualThinkingBudget: true, efforts: [], price: rates(1, 5) },
}

/** A Map, so ids such as `constructor` cannot hit `Object.prototype`. */
const MODELS: ReadonlyMap<string, AnthropicModelInfo> = new Map(Object.entries(MODEL_TABLE))

const DATED_SUFFIX = /-\d{8}$/

/**
 * The table entry for a model id, or `undefined` when unknown. A dated id
 * matches its family only through an exact `-YYYYMMDD` suffix, so
 * `claude-fable-5-2` never falls back to `claude-fable-5`.
 */
export function findAnthropicModel(modelId: string): AnthropicModelInfo | undefined {
  return MODELS.get(modelId) ?? MODELS.get(modelId.replace(DATED_SUFFIX, ''))
}

/** Token counts of one turn, split the way Anthropic bills them. */
export interface AnthropicTokenCounts {
  input: number
  output: number
  cacheRead: number
  cacheWrite5m: number
  cacheWrite1h: number
}

/** The list-price cost of one turn in USD, or `undefined` for a model without a price. */
export function anthropicTurnCost(modelId: string, tokens: AnthropicTokenCounts): number | undefined {
  const price = findAnthropicModel(modelId)?.price
  if (!price)
    return undefined
  const promptTokens = tokens.input + tokens.cacheRead + tokens.cacheWrite5m + tokens.cacheWrite1h
  const band: AnthropicPriceRates = price.longPrompt && promptTokens > price.longPrompt.aboveTokens ? price.longPrompt : price
  const microDollars = tokens.input * band.input
    + tokens.output * band.output
    + tokens.cacheRead * band.cacheRead
    + tokens.cacheWrite5m * band.cacheWrite5m
    + tokens.cacheWrite1h * band.cacheWrite1h
  return microDollars / 1_000_000
}
