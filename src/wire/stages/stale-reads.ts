import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../core/content'
import type { WireStage } from '../stage'
import { mediaMarker } from './media-marker'

/**
 * Stale-read detection, shared by the wire stage below (`elideStaleReads:
 * 'stub'`) and the notice policy (`'notice'`), so both modes agree on what is
 * stale. Conservative on purpose: only a result confirming that the file
 * changed (`Edited …`, `Created …`, `Updated …`) makes earlier reads of the
 * path stale; failed writes and `No change needed` do not.
 */

/** The tool whose results can go stale. */
export const READ_TOOL = 'read_file'

/** The tools whose successful results change a file. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set(['edit', 'multi_edit', 'write_file'])

const CONFIRMS_CHANGE = /^(?:Edited|Created|Updated) /

function firstText(output: string | readonly ToolResultContent[]): string {
  if (typeof output === 'string')
    return output
  const block = output.find(part => part.type === 'text')
  return block?.type === 'text' ? block.text : ''
}

/** Whether a mutating tool's result says the file changed. */
export function confirmsChange(output: string | readonly ToolResultContent[], isError: boolean | undefined): boolean {
  return isError !== true && CONFIRMS_CHANGE.test(firstText(output))
}

/**
 * A path as the model wrote it, made comparable without the file system:
 * backslashes to slashes, `.` segments and repeated slashes dropped, `..`
 * folded into its parent where there is one. `src/a.ts`, `./src/a.ts` and
 * `src//b/../a.ts` compare equal; a relative and an absolute spelling of one
 * file do not (that needs the working directory, which a wire stage has not).
 */
export function comparablePath(path: string): string {
  const absolute = path.startsWith('/')
  const parts: string[] = []
  for (const part of path.replaceAll('\\', '/').split('/')) {
    if (part === '' || part === '.')
      continue
    if (part === '..' && parts.length > 0 && parts.at(-1) !== '..')
      parts.pop()
    else
      parts.push(part)
  }
  return (absolute ? '/' : '') + parts.join('/')
}

/** The path a file-tool call names, comparable, or `undefined` when it names none. */
export function callPath(input: Readonly<Record<string, unknown>>): string | undefined {
  const path = input.path
  return typeof path === 'string' && path !== '' ? comparablePath(path) : undefined
}

/**
 * The stub a stale read's result becomes on the wire. It depends on the path
 * only, so the same stale read is sent as the same bytes on every request.
 */
export function staleReadStub(path: string): string {
  return `[Stale read_file result elided: ${path} was changed later in this conversation, so this content is out of date. Call read_file again if you need the current content.]`
}

/**
 * What a stale read is sent as: the stub, and, for an image or PDF the read
 * returned, the marker naming its handle, so the model can still look at the
 * version it read (the session keeps it).
 */
function staleOutput(output: string | readonly ToolResultContent[], path: string): string | ToolResultContent[] {
  const stub = staleReadStub(path)
  if (typeof output === 'string')
    return stub
  const markers: ToolResultContent[] = []
  for (const part of output) {
    if (part.type === 'image' || part.type === 'document')
      markers.push({ type: 'text', text: mediaMarker(part) })
  }
  return markers.length === 0 ? stub : [{ type: 'text', text: stub }, ...markers]
}

interface ReadAt {
  readonly message: number
  readonly block: number
  readonly path: string
}

/**
 * Replace, on the wire only, every successful `read_file` result whose path a
 * later successful `edit` / `multi_edit` / `write_file` changed, with
 * `staleReadStub(path)`. List-scoped: whether a read is stale depends on the
 * messages after it, so this stage rewrites an earlier message when a later
 * write arrives (the prompt cache is rewritten from that read on; see
 * `elideStaleReads`). Messages it does not touch come through as the same
 * objects, and a list with nothing stale as the same array.
 */
export const staleReadsStage: WireStage = {
  name: 'stale-reads',
  apply: (messages) => {
    const calls = new Map<string, { name: string, path: string }>()
    const reads: ReadAt[] = []
    const stale: ReadAt[] = []
    for (let m = 0; m < messages.length; m++) {
      const content = messages[m].content
      for (let b = 0; b < content.length; b++) {
        const block = content[b]
        if (block.type === 'tool_call') {
          if (block.name !== READ_TOOL && !MUTATING_TOOLS.has(block.name))
            continue
          const path = callPath(block.input)
          if (path !== undefined)
            calls.set(block.id, { name: block.name, path })
          continue
        }
        if (block.type !== 'tool_result')
          continue
        const call = calls.get(block.callId)
        if (!call)
          continue
        if (call.name === READ_TOOL) {
          if (block.isError !== true)
            reads.push({ message: m, block: b, path: call.path })
          continue
        }
        if (!confirmsChange(block.output, block.isError))
          continue
        for (let r = reads.length - 1; r >= 0; r--) {
          if (reads[r].path === call.path) {
            stale.push(reads[r])
            reads.splice(r, 1)
          }
        }
      }
    }
    if (stale.length === 0)
      return messages
    const out = messages.slice()
    const copied = new Set<number>()
    for (const at of stale) {
      const message = out[at.message]
      const content: SessionContentBlock[] = copied.has(at.message) ? message.content : message.content.slice()
      const block = content[at.block] as Extract<SessionContentBlock, { type: 'tool_result' }>
      content[at.block] = { type: 'tool_result', callId: block.callId, output: staleOutput(block.output, at.path) }
      if (!copied.has(at.message)) {
        out[at.message] = { role: message.role, content } satisfies SessionMessage
        copied.add(at.message)
      }
    }
    return out
  },
}
