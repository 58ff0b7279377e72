/**
 * Which `reasoning_effort` values OpenAI's models accept. Sending an effort to
 * a model without reasoning, or a value the model does not know, is a 400, so
 * `openai()` fits every level to this table (`fitEffort`).
 *
 * From OpenAI's reasoning guide as of 2026-11: the o-series takes
 * low/medium/high; `gpt-5` adds `minimal`; `gpt-5.1` drops `minimal`;
 * `gpt-5.1-codex-max` and every later model add `xhigh`; `gpt-5-pro` takes only
 * `high`; the `-chat` variants are not reasoning models. A later `gpt-N` that
 * this table does not know is assumed to follow the newest known family.
 */

import type { ChatReasoningEffort } from './reasoning-effort'

const O_SERIES: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']
const GPT_5: readonly ChatReasoningEffort[] = ['minimal', 'low', 'medium', 'high']
const GPT_5_1: readonly ChatReasoningEffort[] = ['low', 'medium', 'high']
const NEWEST: readonly ChatReasoningEffort[] = ['low', 'medium', 'high', 'xhigh']
const NONE: readonly ChatReasoningEffort[] = []

/** First match wins, so the narrower patterns come first. */
const FAMILIES: ReadonlyArray<readonly [RegExp, readonly ChatReasoningEffort[]]> = [
  [/^gpt-\d+(?:\.\d+)?-chat/, NONE],
  [/^gpt-5-pro/, ['high']],
  [/^gpt-5\.1-codex-max/, NEWEST],
  [/^gpt-5\.1(?:-|$)/, GPT_5_1],
  [/^gpt-5(?:-|$)/, GPT_5],
  [/^gpt-5\.\d/, NEWEST],
  [/^gpt-(?:[6-9]|\d{2,})/, NEWEST],
  [/^gpt-oss/, O_SERIES],
  [/^o\d/, O_SERIES],
  [/^codex-mini/, O_SERIES],
]

/** Efforts an OpenAI model accepts, weakest first; empty for models without reasoning (gpt-4o, gpt-4.1, …). */
export function openaiReasoningEfforts(model: string): readonly ChatReasoningEffort[] {
  const id = model.toLowerCase()
  for (const [pattern, efforts] of FAMILIES) {
    if (pattern.test(id))
      return efforts
  }
  return NONE
}
