/**
 * The tool-call argument `stream-deltas` streams: a JSON object of about the
 * requested size, and how it is cut into deltas. Shared by the delta server
 * (which sends it) and the benchmark (which checks that the tool received
 * exactly this value), so both sides build it from the size alone.
 */

/** The wire formats the delta benchmark streams over. */
export type DeltaProvider = 'anthropic' | 'openai-chat'

/** Characters per streamed delta, about what a model API sends per event. */
export const DELTA_CHARS = 24

/** One record of the argument: escapes and non-ASCII text, so a reader cannot take shortcuts. */
function record(n: number): { id: number, text: string, done: boolean } {
  return { id: n, text: `Line ${n}: café "quoted", a tab\tand a backslash \\ then a newline\n`, done: n % 3 === 0 }
}

/** The argument object whose JSON text is at least `bytes` long (a title and no records below the smallest size). */
export function deltaArgument(bytes: number): { title: string, items: ReturnType<typeof record>[] } {
  const value = { title: `report of about ${bytes} bytes`, items: [] as ReturnType<typeof record>[] }
  // Each record serializes to the same length give or take its id's digits, so grow by an estimate then top up.
  const base = JSON.stringify(value).length
  const per = JSON.stringify(record(10_000)).length + 1
  const estimate = Math.max(0, Math.floor((bytes - base) / per))
  for (let n = 0; n < estimate; n++)
    value.items.push(record(n))
  while (JSON.stringify(value).length < bytes)
    value.items.push(record(value.items.length))
  return value
}

/** The argument's JSON text cut into `DELTA_CHARS`-character deltas (escapes and all may be split). */
export function deltaPieces(json: string): string[] {
  const pieces: string[] = []
  for (let start = 0; start < json.length; start += DELTA_CHARS)
    pieces.push(json.slice(start, start + DELTA_CHARS))
  return pieces
}

/** The first user message that asks the delta server for an argument of `bytes` bytes. */
export function deltaPrompt(bytes: number): string {
  return `Write the report. bytes=${bytes}`
}

const BYTES_IN_PROMPT = /bytes=(\d+)/

/** The size a prompt made by `deltaPrompt` asks for, or `undefined`. */
export function bytesOfPrompt(prompt: string): number | undefined {
  const match = BYTES_IN_PROMPT.exec(prompt)
  return match ? Number(match[1]) : undefined
}
