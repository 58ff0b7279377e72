/**
 * Gemini's thought signatures on the Chat Completions wire. Gemini's
 * OpenAI-compatible endpoint puts an opaque signature on each tool call it
 * makes (`extra_content.google.thought_signature`) and, for Gemini 3 models,
 * refuses the next request when a call comes back without it. The signature
 * is kept on the recorded `tool_call` block, tagged `gemini`, and sent back
 * only to a Gemini model: another server has no use for it, and one that
 * checks its input strictly could refuse the unknown field.
 */

import type { SignatureProducer } from '../../core/content'

/** The `signatureProducer` of a signature Gemini wrote. */
export const GEMINI_SIGNATURE_PRODUCER: SignatureProducer = 'gemini'

/** The field that carries a signature back on a tool call. */
export interface GeminiExtraContent {
  extra_content: { google: { thought_signature: string } }
}

/** A Gemini model id, bare or behind a gateway prefix (`gemini-3-pro-preview`, `google/gemini-2.5-flash`). */
const GEMINI_MODEL = /(?:^|[/:])gemini-/i

/** Whether a model id names a Gemini model, the only kind that reads these signatures. */
export function isGeminiModel(model: string): boolean {
  return GEMINI_MODEL.test(model)
}

/** The field to add to a tool call sent to `model`, or `undefined` when the block carries no Gemini signature or the model is not Gemini. */
export function geminiSignatureField(block: { signature?: string, signatureProducer?: SignatureProducer }, model: string): GeminiExtraContent | undefined {
  if (block.signatureProducer !== GEMINI_SIGNATURE_PRODUCER || !block.signature || !isGeminiModel(model))
    return undefined
  return { extra_content: { google: { thought_signature: block.signature } } }
}
