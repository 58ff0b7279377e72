/**
 * Server-sent event streams read straight from a response body. Both the
 * Chat Completions and the Anthropic providers read their bodies here rather
 * than through their SDK's `Stream`: Chat Completions to see the `[DONE]`
 * line that `openai` drops (see `../openai-chat/sse-chunks.ts`), Anthropic
 * because a turn is a few dozen small events and the SDK hands each one
 * through several layers of async generators, which cost more than the rest
 * of the turn's parsing (see `docs/performance.md`). The SDKs' parsers are
 * internal (named with an underscore, free to change in any release of the
 * ranges zidane accepts), so this one is zidane's own, kept to what they do
 * on the wire:
 *
 * - lines end in CRLF, LF or a lone CR, also when a line end is split
 *   between two network reads;
 * - `data:` lines (one optional space after the colon is dropped) are joined
 *   with `\n`; an empty line ends the message;
 * - `:` lines are comments (keep-alives) and `id:`, `retry:` and unknown
 *   fields are ignored;
 * - a message with a non-empty `event:` but no data still counts, with empty
 *   data;
 * - text after the last empty line is not a message: a body that ends
 *   half-way through one has lost it.
 *
 * A body with text but not one line of the format (no field the format
 * names, no comment) is no event stream at all: an HTML login page, a JSON
 * answer from a server that ignored `stream: true`, a proxy's error page
 * sent with status 200. It ends the read with a `ClassifiedError` quoting
 * its start, rather than reading as a stream cut off before its first event.
 *
 * Bytes are decoded as UTF-8 across read boundaries; invalid bytes become
 * U+FFFD, as in both SDKs.
 *
 * Work is linear in the body: each read is searched once, and the pieces of a
 * line that spans many reads are kept in a list and joined once, when the
 * line ends. A line, or a message's data, longer than `MAX_EVENT_STREAM_LINE_CHARS`
 * ends the read with a `ClassifiedError` instead of growing without bound.
 */

import { ClassifiedError } from '../../errors'
import { truncateText } from '../../text/truncate'

const LF = 0x0A
const CR = 0x0D
const SPACE = 0x20

/** Longest excerpt of an unreadable message quoted in `notJsonMessageError`, and of a body that is not an event stream. */
const EXCERPT_CHARS = 120

const LEADING_LINE_ENDS = /^[\r\n]+/
const LINE_END = /[\r\n]/
/** The fields the format names. */
const FIELDS: readonly string[] = ['data', 'event', 'id', 'retry']

/**
 * The longest line, and the longest data of one message, a body may send
 * (64 Mi UTF-16 code units, 64 MiB of ASCII): far above any real event
 * (a tool call writing a large file is a few MiB), far below what a string
 * can hold.
 */
export const MAX_EVENT_STREAM_LINE_CHARS = 64 * 1024 * 1024

/**
 * The most bytes one response body may send (256 MiB). The longest real turn
 * (128k output tokens, one small event per token, a few hundred bytes of
 * framing each) is a few tens of MiB; what a turn keeps of a body is at most
 * its size, so this also bounds the turn's text well below the longest string
 * JavaScript can build.
 */
export const MAX_EVENT_STREAM_BODY_BYTES = 256 * 1024 * 1024

/** Called once per message, with its `event:` name (`''` when it had none) and its data. */
export type EventStreamHandler = (event: string, data: string) => void

/** Who sent the body (named in errors), and the size limit (tests lower it). */
export interface EventStreamOptions {
  provider?: string
  /** Default: `MAX_EVENT_STREAM_LINE_CHARS`. */
  maxLineChars?: number
  /** Default: `MAX_EVENT_STREAM_BODY_BYTES`. */
  maxBodyBytes?: number
  /** Sees each comment line's text. */
  onComment?: EventStreamCommentHandler
}

/**
 * Read `body` to its end (none reads as an empty stream), calling `onMessage`
 * for each message as soon as its closing empty line arrives. A throw from
 * `onMessage` stops the read, lets the connection go, and rejects; so does a
 * line, a message or the whole body over its size limit.
 */
export async function readEventStream(body: ReadableStream<Uint8Array> | null, onMessage: EventStreamHandler, options: EventStreamOptions = {}): Promise<void> {
  const parser = new EventStreamParser(onMessage, options)
  for await (const bytes of readsOf(body))
    parser.feed(bytes)
  parser.feed(undefined)
}

/** Called with the text of each comment line (after the `:` and one optional space). */
export type EventStreamCommentHandler = (text: string) => void

/**
 * The data of each message of `body`, in order: `readEventStream` as an
 * iterator. `options.onComment` sees the comment lines, which some servers
 * use for data outside the messages (Neuralwatt's `: energy {…}`).
 */
export async function* readEventData(body: ReadableStream<Uint8Array> | null, options: EventStreamOptions = {}): AsyncGenerator<string> {
  // Messages of one network read, handed out before the next read.
  const batch: string[] = []
  const parser = new EventStreamParser((_event, data) => {
    batch.push(data)
  }, options)
  for await (const bytes of readsOf(body)) {
    parser.feed(bytes)
    yield* batch.splice(0)
  }
  parser.feed(undefined)
  yield* batch.splice(0)
}

/** The chunks of `body` as the network delivers them; left early (a throw, a `break`), the body is cancelled. */
async function* readsOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body)
    return
  const reader = body.getReader()
  let ended = false
  try {
    for (;;) {
      const read = await reader.read()
      if (read.done) {
        ended = true
        return
      }
      yield read.value
    }
  }
  finally {
    // Let the connection go. A body read to its end needs nothing more (releasing the lock of a closed
    // stream only builds an error for `reader.closed`).
    if (!ended)
      reader.cancel().catch(() => {})
  }
}

/** The line and message state between two network reads. */
class EventStreamParser {
  private readonly decoder = new TextDecoder()
  private readonly maxChars: number
  /** Bytes the body may still send before it passes `maxBodyBytes`. */
  private bodyBytesLeft: number
  /** The pieces of a line begun in earlier reads (no line end in them), joined once the line ends. */
  private readonly pending: string[] = []
  private pendingChars = 0
  /** The last read ended with a CR: an LF starting the next one belongs to that line end. */
  private afterCR = false
  /** The message's first data line, and the later ones (most messages have one). */
  private data: string | undefined = undefined
  private moreData: string[] | undefined = undefined
  private dataChars = 0
  private event = ''
  // Most servers end lines with LF alone, which the native search finds fastest; one CR anywhere switches for good.
  private lfOnly = true
  /** A line of the format came (a field it names, or a comment): the body is an event stream. */
  private sawFormat = false
  /** The body's first characters, kept until a line of the format comes, to quote a body that is not an event stream. */
  private start = ''

  constructor(private readonly onMessage: EventStreamHandler, private readonly options: EventStreamOptions) {
    this.maxChars = options.maxLineChars ?? MAX_EVENT_STREAM_LINE_CHARS
    this.bodyBytesLeft = options.maxBodyBytes ?? MAX_EVENT_STREAM_BODY_BYTES
  }

  /** Take the bytes of one read; `undefined` once the body is over. */
  feed(bytes: Uint8Array | undefined): void {
    // At the end, bytes the decoder still holds are an unfinished character, hence an unfinished line: dropped
    // with the rest of that line.
    if (bytes === undefined) {
      if (!this.sawFormat && !startsLikeEventStream(this.start))
        throw this.notEventStream()
      return
    }
    this.bodyBytesLeft -= bytes.length
    if (this.bodyBytesLeft < 0)
      throw this.bodyTooLarge()
    const text = this.decoder.decode(bytes, { stream: true })
    if (text.length === 0)
      return
    if (!this.sawFormat && this.start.length <= EXCERPT_CHARS)
      this.start += text.slice(0, EXCERPT_CHARS + 1 - this.start.length)
    if (this.lfOnly && text.includes('\r'))
      this.lfOnly = false
    let start = 0
    if (this.afterCR) {
      this.afterCR = false
      if (text.charCodeAt(0) === LF)
        start = 1
    }
    // Only this read's text is searched: what earlier reads left is known to hold no line end.
    for (let end = lineEnd(text, start, this.lfOnly); end !== -1; end = lineEnd(text, start, this.lfOnly)) {
      let line = text.slice(start, end)
      if (this.pending.length > 0) {
        this.holdLinePiece(line)
        line = this.pending.join('')
        this.pending.length = 0
        this.pendingChars = 0
      }
      else if (line.length > this.maxChars) {
        throw this.tooLarge('line')
      }
      start = end + 1
      if (text.charCodeAt(end) === CR) {
        // A CR that ends the read may be the first half of a CRLF: the next read says.
        if (start === text.length)
          this.afterCR = true
        else if (text.charCodeAt(start) === LF)
          start++
      }
      this.line(line)
    }
    if (start < text.length)
      this.holdLinePiece(start === 0 ? text : text.slice(start))
  }

  private holdLinePiece(piece: string): void {
    this.pendingChars += piece.length
    if (this.pendingChars > this.maxChars)
      throw this.tooLarge('line')
    this.pending.push(piece)
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data !== undefined || this.event !== '') {
        const event = this.event
        const data = this.moreData ? [this.data, ...this.moreData].join('\n') : this.data ?? ''
        this.data = undefined
        this.moreData = undefined
        this.dataChars = 0
        this.event = ''
        this.onMessage(event, data)
      }
      return
    }
    const colon = line.indexOf(':')
    if (colon === 0) {
      this.sawFormat = true
      this.options.onComment?.(line.slice(line.charCodeAt(1) === SPACE ? 2 : 1))
      return
    }
    const field = colon === -1 ? line : line.slice(0, colon)
    if (field === 'id' || field === 'retry')
      this.sawFormat = true
    if (field !== 'data' && field !== 'event')
      return
    this.sawFormat = true
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (field === 'event') {
      this.event = value
      return
    }
    if (this.data === undefined) {
      this.data = value
      this.dataChars = value.length
      return
    }
    // Joined with a line feed each: counted with it.
    this.dataChars += 1 + value.length
    if (this.dataChars > this.maxChars)
      throw this.tooLarge('message')
    this.moreData ??= []
    this.moreData.push(value)
  }

  private tooLarge(what: 'line' | 'message'): ClassifiedError {
    const provider = this.options.provider
    const limit = `${Math.round(this.maxChars / (1024 * 1024) * 100) / 100} Mi characters`
    return new ClassifiedError(
      `${provider ?? 'the server'} streamed an event-stream ${what} longer than ${limit}; the response was not read further`,
      { kind: 'server', retryable: false, provider },
    )
  }

  private notEventStream(): ClassifiedError {
    const provider = this.options.provider
    const excerpt = this.start.length > EXCERPT_CHARS ? `${truncateText(this.start, EXCERPT_CHARS)}…` : this.start
    return new ClassifiedError(
      `${provider ?? 'the server'} answered with a body that is not an event stream: ${excerpt}`,
      { kind: 'server', retryable: true, provider },
    )
  }

  private bodyTooLarge(): ClassifiedError {
    const provider = this.options.provider
    const limit = this.options.maxBodyBytes ?? MAX_EVENT_STREAM_BODY_BYTES
    return new ClassifiedError(
      `${provider ?? 'the server'} streamed a response body longer than ${Math.round(limit / (1024 * 1024) * 100) / 100} MiB; the response was not read further`,
      { kind: 'server', retryable: false, provider },
    )
  }
}

/** Where the next line of `text` from `from` ends (its CR or LF), or -1. */
function lineEnd(text: string, from: number, lfOnly: boolean): number {
  if (lfOnly)
    return text.indexOf('\n', from)
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === LF || code === CR)
      return at
  }
  return -1
}

/**
 * Whether a body's first characters (from a body in which no line of the
 * format ended) can still be an event stream cut off early: nothing but line
 * ends, a comment, or a first line that names a field of the format, or
 * begins to (`dat`, the body cut before its first line ended).
 */
function startsLikeEventStream(start: string): boolean {
  const text = start.replace(LEADING_LINE_ENDS, '')
  if (text === '' || text.startsWith(':'))
    return true
  const end = text.search(LINE_END)
  const first = end === -1 ? text : text.slice(0, end)
  const colon = first.indexOf(':')
  const field = colon === -1 ? first : first.slice(0, colon)
  const cut = colon === -1 && end === -1
  return FIELDS.some(name => cut ? name.startsWith(field) : name === field)
}

/**
 * The error for a message whose data is not JSON: a retryable `server` error
 * quoting its start. The server broke the stream's format, which a new
 * attempt may not repeat. Both wires' readers throw it.
 */
export function notJsonMessageError(provider: string, data: string): ClassifiedError {
  const excerpt = data.length > EXCERPT_CHARS ? `${data.slice(0, EXCERPT_CHARS)}…` : data
  return new ClassifiedError(`${provider} streamed a message that is not JSON: ${excerpt}`, { kind: 'server', retryable: true, provider })
}
