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
 * Bytes are decoded as UTF-8 across read boundaries; invalid bytes become
 * U+FFFD, as in both SDKs.
 */

const LF = 0x0A
const CR = 0x0D
const SPACE = 0x20

/** Called once per message, with its `event:` name (`''` when it had none) and its data. */
export type EventStreamHandler = (event: string, data: string) => void

/**
 * Read `body` to its end (none reads as an empty stream), calling `onMessage`
 * for each message as soon as its closing empty line arrives. A throw from
 * `onMessage` stops the read, lets the connection go, and rejects.
 */
export async function readEventStream(body: ReadableStream<Uint8Array> | null, onMessage: EventStreamHandler): Promise<void> {
  const parser = new EventStreamParser(onMessage)
  for await (const bytes of readsOf(body))
    parser.feed(bytes)
  parser.feed(undefined)
}

/** Called with the text of each comment line (after the `:` and one optional space). */
export type EventStreamCommentHandler = (text: string) => void

/**
 * The data of each message of `body`, in order: `readEventStream` as an
 * iterator. `onComment` sees the comment lines, which some servers use for
 * data outside the messages (Neuralwatt's `: energy {…}`).
 */
export async function* readEventData(body: ReadableStream<Uint8Array> | null, onComment?: EventStreamCommentHandler): AsyncGenerator<string> {
  // Messages of one network read, handed out before the next read.
  const batch: string[] = []
  const parser = new EventStreamParser((_event, data) => {
    batch.push(data)
  }, onComment)
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
  /** Text after the last complete line, searched already. */
  private rest = ''
  private data: string | undefined = undefined
  private event = ''
  // Most servers end lines with LF alone, which the native search finds fastest; one CR anywhere switches for good.
  private lfOnly = true

  constructor(private readonly onMessage: EventStreamHandler, private readonly onComment?: EventStreamCommentHandler) {}

  /** Take the bytes of one read; `undefined` once the body is over. */
  feed(bytes: Uint8Array | undefined): void {
    const ended = bytes === undefined
    // Bytes the decoder still holds at the end are an unfinished character, hence an unfinished line: dropped with it.
    const fresh = ended ? '' : this.decoder.decode(bytes, { stream: true })
    const text = this.rest + fresh
    if (this.lfOnly && fresh.includes('\r'))
      this.lfOnly = false
    // `rest` holds no line end, except a final CR kept back for its LF: searching it again on every read
    // would make one long line (a big tool call in a single chunk) quadratic.
    let start = 0
    for (let end = lineEnd(text, Math.max(0, this.rest.length - 1), this.lfOnly); end !== -1; end = lineEnd(text, start, this.lfOnly)) {
      let next = end + 1
      if (text.charCodeAt(end) === CR) {
        // A CR that ends the text may be the first half of a CRLF: wait for the next read.
        if (next === text.length && !ended)
          break
        if (text.charCodeAt(next) === LF)
          next++
      }
      const line = text.slice(start, end)
      start = next
      this.line(line)
    }
    this.rest = text.slice(start)
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data !== undefined || this.event !== '') {
        const event = this.event
        const data = this.data ?? ''
        this.data = undefined
        this.event = ''
        this.onMessage(event, data)
      }
      return
    }
    const colon = line.indexOf(':')
    if (colon === 0) {
      this.onComment?.(line.slice(line.charCodeAt(1) === SPACE ? 2 : 1))
      return
    }
    const field = colon === -1 ? line : line.slice(0, colon)
    if (field !== 'data' && field !== 'event')
      return
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (field === 'data')
      this.data = this.data === undefined ? value : `${this.data}\n${value}`
    else
      this.event = value
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
