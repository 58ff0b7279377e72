/**
 * The messages of a server-sent event stream, read straight from a response
 * body: the `data` of each message, in order.
 *
 * zidane reads Chat Completions bodies itself rather than through the
 * `openai` client's `Stream`, which drops the `[DONE]` line (see
 * `sse-chunks.ts`). The client's own parser is not public (its name starts
 * with an underscore and may change in any 6.x release), so this is a parser
 * of the event-stream format, kept to what that parser does on the wire:
 *
 * - lines end in CRLF, LF or a lone CR, also when a line end is split
 *   between two network reads;
 * - `data:` lines (one optional space after the colon is dropped) are joined
 *   with `\n`; an empty line ends the message;
 * - `:` lines are comments (keep-alives) and `id:`, `retry:` and unknown
 *   fields are ignored;
 * - a message that had a non-empty `event:` but no data still counts, with
 *   empty data (the client yields it the same way);
 * - text after the last empty line is not a message: a body that ends
 *   half-way through one has lost it.
 *
 * Bytes are decoded as UTF-8 across read boundaries; invalid bytes become
 * U+FFFD, as in the client.
 */

const LF = 0x0A
const CR = 0x0D
const SPACE = 0x20

/** Reads `body` (none reads as an empty stream) and yields the data of each message. */
export async function* readEventData(body: ReadableStream<Uint8Array> | null): AsyncGenerator<string> {
  if (!body)
    return
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let rest = ''
  let data: string | undefined
  let named = false
  let ended = false
  // Most servers end lines with LF alone, which the native search finds fastest; one CR anywhere switches for good.
  let lfOnly = true
  try {
    while (!ended) {
      const read = await reader.read()
      ended = read.done
      // Bytes the decoder still holds at the end are an unfinished character, hence an unfinished line: dropped with it.
      const fresh = ended ? '' : decoder.decode(read.value, { stream: true })
      const text = rest + fresh
      if (lfOnly && fresh.includes('\r'))
        lfOnly = false
      // `rest` was searched already and holds no line end, except a final CR kept back for its LF: searching it
      // again on every read would make one long line (a big tool call in a single chunk) quadratic.
      let start = 0
      for (let end = lineEnd(text, Math.max(0, rest.length - 1), lfOnly); end !== -1; end = lineEnd(text, start, lfOnly)) {
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
        if (line === '') {
          if (data !== undefined || named) {
            const message = data ?? ''
            data = undefined
            named = false
            yield message
          }
          continue
        }
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        // A comment (`:` first) has the empty field name and falls through here.
        if (field !== 'data' && field !== 'event')
          continue
        const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
        if (field === 'data')
          data = data === undefined ? value : `${data}\n${value}`
        else
          named = value !== ''
      }
      rest = text.slice(start)
    }
  }
  finally {
    // Stopped early (an error in a chunk, an abort): let the connection go.
    if (!ended)
      reader.cancel().catch(() => {})
    reader.releaseLock()
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
