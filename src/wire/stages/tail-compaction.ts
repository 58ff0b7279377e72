import type { SessionContentBlock, SessionMessage, ToolResultBlock, ToolResultContent } from '../../core/content'
import type { SentWireStage, WireStageContext } from '../stage'
import { mergeObjects } from '../../core/merge-objects'
import { utf8ByteLength } from '../../text/utf8-length'
import { isMediaMarker } from './media-marker'

/** What tail compaction needs to know, resolved from the knobs by the policy that owns them. */
export interface TailCompactionConfig {
  /** Bytes of tool-output text kept on the wire before the frontier moves. */
  readonly threshold: number
  /** Raises the threshold to this fraction of the context window (4 bytes a token) when the window is known. */
  readonly windowFraction?: number
  /** Most recent messages whose outputs are never stubbed. */
  readonly keepTurns: number
  /** Each step trims kept output to this fraction of the threshold (`0 < f < 1`; anything else is ignored). */
  readonly lowWaterFraction?: number
  /** Runs on which the stage does nothing. */
  readonly skip?: { readonly minContextWindow?: number, readonly providers?: readonly string[] }
}

/** Bytes a token is taken to weigh when a window in tokens becomes a byte threshold. */
export const BYTES_PER_TOKEN = 4

/** The threshold in force: the byte threshold, or the window fraction when that is larger. */
export function effectiveTailThreshold(config: Pick<TailCompactionConfig, 'threshold' | 'windowFraction'>, contextWindow: number | undefined): number {
  if (config.windowFraction === undefined || contextWindow === undefined)
    return config.threshold
  return Math.max(config.threshold, config.windowFraction * contextWindow * BYTES_PER_TOKEN)
}

/** Whether `compactSkip` matches this request: provider listed (or any), and window at least the minimum (or any). */
export function tailCompactionSkipped(skip: TailCompactionConfig['skip'], ctx: Pick<WireStageContext, 'providerName' | 'contextWindow'>): boolean {
  if (!skip)
    return false
  if (skip.providers !== undefined && !skip.providers.includes(ctx.providerName))
    return false
  if (skip.minContextWindow !== undefined && (ctx.contextWindow === undefined || ctx.contextWindow < skip.minContextWindow))
    return false
  return true
}

/** Bytes of tool-output text in one tool result (media is not counted: tail compaction never trims it). */
export function toolResultTextBytes(output: string | readonly ToolResultContent[]): number {
  if (typeof output === 'string')
    return utf8ByteLength(output)
  let total = 0
  for (const part of output) {
    if (part.type === 'text')
      total += utf8ByteLength(part.text)
  }
  return total
}

/**
 * Each text result's byte count with the text it was counted from. The
 * frontier is recomputed over the whole conversation on every request;
 * recorded results do not change, so each is counted once per run instead of
 * once per turn. A result whose text was replaced since is counted again;
 * part arrays (which could be edited in place) are always counted.
 */
const countedResults = new WeakMap<ToolResultBlock, { output: string, bytes: number }>()

function resultBytes(block: ToolResultBlock): number {
  const output = block.output
  if (typeof output !== 'string')
    return toolResultTextBytes(output)
  const known = countedResults.get(block)
  if (known && known.output === output)
    return known.bytes
  const bytes = utf8ByteLength(output)
  countedResults.set(block, { output, bytes })
  return bytes
}

function messageToolBytes(message: SessionMessage): number {
  let total = 0
  for (const block of message.content) {
    if (block.type === 'tool_result')
      total += resultBytes(block)
  }
  return total
}

/**
 * The tail frontier: outputs of messages before this index are stubbed. A
 * pure function of the message prefix, computed by one pass that sees the
 * messages in order: after each message, when the kept bytes pass the
 * threshold, the frontier moves forward until they are back under the
 * target (the low-water mark, or the threshold itself), never into the last
 * `keepTurns` messages seen so far. Appending messages can only move it
 * forward, never change where it stood for a shorter prefix.
 */
export function tailFrontier(messages: readonly SessionMessage[], threshold: number, keepTurns: number, lowWaterFraction?: number): number {
  const lowWater = lowWaterFraction !== undefined && lowWaterFraction > 0 && lowWaterFraction < 1 ? lowWaterFraction * threshold : threshold
  const keep = Math.max(0, Math.floor(keepTurns))
  const bytes: number[] = []
  let frontier = 0
  let kept = 0
  for (let i = 0; i < messages.length; i++) {
    const size = messageToolBytes(messages[i])
    bytes.push(size)
    kept += size
    if (kept <= threshold)
      continue
    const limit = i + 1 - keep
    while (frontier < limit && kept > lowWater) {
      kept -= bytes[frontier]
      frontier++
    }
  }
  return frontier
}

/** The stub an elided output becomes: a function of the output alone, so it is the same bytes on every request. */
export function compactedOutputStub(bytes: number): string {
  return `[tool output compacted: ${bytes} bytes left out of the context to save space; run the tool again if you need it]`
}

/**
 * Media markers one result keeps through the stub. Real ones stand for media
 * the result carried (a handful at most); a tool could also write text shaped
 * like markers, and this bounds what such text can keep on the wire.
 */
export const MAX_KEPT_MARKERS = 64

/** Which parts survive the stub: media, and up to `MAX_KEPT_MARKERS` markers an earlier stage left where it removed media. */
function keptParts(output: readonly ToolResultContent[]): boolean[] {
  let markers = 0
  return output.map((part) => {
    if (part.type !== 'text')
      return true
    if (markers < MAX_KEPT_MARKERS && isMediaMarker(part.text)) {
      markers++
      return true
    }
    return false
  })
}

function stubResult(block: ToolResultBlock): ToolResultBlock {
  const output = block.output
  if (typeof output === 'string') {
    const bytes = utf8ByteLength(output)
    return bytes === 0 ? block : mergeObjects(block, { output: compactedOutputStub(bytes) })
  }
  const keep = keptParts(output)
  let bytes = 0
  output.forEach((part, index) => {
    if (!keep[index] && part.type === 'text')
      bytes += utf8ByteLength(part.text)
  })
  if (bytes === 0)
    return block
  // Media parts and media markers stay, in order: only other text is elided, so the model can still read_file a removed image back.
  const kept: ToolResultContent[] = [{ type: 'text', text: compactedOutputStub(bytes) }]
  output.forEach((part, index) => {
    if (keep[index])
      kept.push(part)
  })
  return mergeObjects(block, { output: kept })
}

function stubMessage(message: SessionMessage): SessionMessage {
  let content: SessionContentBlock[] | undefined
  message.content.forEach((block, index) => {
    if (block.type !== 'tool_result')
      return
    const stubbed = stubResult(block)
    if (stubbed !== block) {
      content ??= message.content.slice()
      content[index] = stubbed
    }
  })
  return content ? { role: message.role, content } : message
}

/** Apply the tail frontier to a list: stub the outputs before it, keep everything else as the same objects. */
export function compactTail(messages: readonly SessionMessage[], threshold: number, keepTurns: number, lowWaterFraction?: number): readonly SessionMessage[] {
  const frontier = tailFrontier(messages, threshold, keepTurns, lowWaterFraction)
  if (frontier === 0)
    return messages
  let out: SessionMessage[] | undefined
  for (let i = 0; i < frontier; i++) {
    const stubbed = stubMessage(messages[i])
    if (stubbed !== messages[i]) {
      out ??= messages.slice()
      out[i] = stubbed
    }
  }
  return out ?? messages
}

/**
 * `compactStrategy: 'tail'` as a sent-slot stage: older tool outputs become
 * a short stub once the kept bytes pass the threshold. Its output for an
 * earlier message changes only at a frontier step (a documented exception to
 * the byte-prefix guarantee); between steps each request extends the last.
 */
export function tailCompactionStage(config: TailCompactionConfig): SentWireStage {
  return {
    name: 'tail-compaction',
    slot: 'sent',
    apply(messages, ctx) {
      if (tailCompactionSkipped(config.skip, ctx))
        return messages
      return compactTail(messages, effectiveTailThreshold(config, ctx.contextWindow), config.keepTurns, config.lowWaterFraction)
    },
  }
}
