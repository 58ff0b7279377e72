/**
 * The built-in `read_file` tool: a numbered slice of a text file, or an image
 * or PDF as an attachment, read through the agent's execution context.
 */

import type { ToolResultContent } from '../core/content'
import type { ToolDescriptionOverride } from './prompts'
import type { ReadSlice } from './read-state'
import type { ToolContext, ToolDef, ToolOutput } from './types'
import { Buffer } from 'node:buffer'
import { z } from 'zod'
import { fileErrorCode } from '../contexts/errors'
import { executionContextOf } from '../contexts/from-tool-context'
import { truncateTextToUtf8 } from '../text/truncate'
import { ATTACHMENT_SCHEME, findAttachment, isAttachmentHandle } from './attachments'
import { fileToolBehaviorOf } from './file-behavior'
import { baseName, decodeText, describeFileError, displayPath, formatBytes, parentDir, sniffFile, splitLines } from './file-content'
import {
  DEFAULT_IMAGE_MAX_BYTES,
  DEFAULT_PDF_MAX_BYTES,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
  DEFAULT_READ_MAX_FILE_BYTES,
} from './file-limits'
import { resolveToolDescription } from './prompts'
import { contentHash, isDuplicateRead, recordRead } from './read-state'
import { tool } from './tool'

/** The arguments of the `read_file` tool. */
export interface ReadFileInput {
  path: string
  offset?: number
  limit?: number
  lineNumbers?: boolean
}

/** Options of `createReadFileTool`. */
export interface ReadFileToolOptions {
  description?: ToolDescriptionOverride
  /** Lines per read when neither the call nor `readFileDefaults` sets a limit. Default 2000. */
  defaultLimit?: number
  /** Bytes of text per read when `readFileDefaults.maxBytes` is unset. Default 100 KiB. */
  maxBytes?: number
  /** Largest text file loaded at all. Default 32 MiB. */
  maxFileBytes?: number
  /** Largest image attached. Default 5 MiB. */
  maxImageBytes?: number
  /** Largest PDF attached. Default 20 MiB. */
  maxPdfBytes?: number
}

const input = z.object({
  path: z.string().min(1).describe('Path of the file, absolute or relative to the working directory.'),
  offset: z.number().int().min(0).optional().describe('1-based line number to start reading at (0 is read as 1).'),
  limit: z.number().int().min(1).optional().describe('Most lines to return.'),
  lineNumbers: z.boolean().optional().describe('Prefix each line with its number and a tab. Default on.'),
})

/** The `read_file` tool: a window of a file's lines, numbered like `cat -n`. */
export function createReadFileTool(options: ReadFileToolOptions = {}): ToolDef<ReadFileInput> {
  return tool({
    name: 'read_file',
    description: resolveToolDescription('read_file', options.description),
    input,
    isConcurrencySafe: true,
    execute: (args, ctx) => runReadFile(args, ctx, options),
  })
}

async function runReadFile(args: ReadFileInput, ctx: ToolContext, options: ReadFileToolOptions): Promise<ToolOutput> {
  if (args.path.startsWith(ATTACHMENT_SCHEME))
    return readAttachment(args.path, ctx)
  const context = executionContextOf(ctx)
  const resolved = context.resolvePath(args.path)
  const shown = displayPath(context, resolved)

  const info = await context.stat(resolved).catch((error: unknown) => {
    throw new Error(describeFileError(error, shown))
  })
  if (!info)
    throw new Error(await notFoundMessage(ctx, resolved, shown))
  if (info.type === 'directory')
    throw new Error(`${shown} is a directory, not a file; use list_files to see what it holds.`)
  // A device or a FIFO: reading one never ends (`/dev/zero`) or waits for a writer that may never come.
  if (info.type === 'other')
    throw new Error(`${shown} is not a regular file (a device, a FIFO or a socket); read_file reads regular files only.`)

  const maxFileBytes = options.maxFileBytes ?? DEFAULT_READ_MAX_FILE_BYTES
  const tooLarge = (size: string) => new Error(`${shown} is too large to read (${size}, limit ${formatBytes(maxFileBytes)}). `
    + 'Look at parts of it with shell commands such as `sed -n \'100,200p\'` or `tail -n 100`.')
  // Refused before loading when no kind of file could be this big; the kind is known only from the bytes.
  const largestAccepted = Math.max(maxFileBytes, options.maxImageBytes ?? DEFAULT_IMAGE_MAX_BYTES, options.maxPdfBytes ?? DEFAULT_PDF_MAX_BYTES)
  if (info.size > largestAccepted)
    throw tooLarge(formatBytes(info.size))

  // The cap holds whatever the size said: a file under /proc says 0 and may never end.
  const bytes = await context.readFile(resolved, { maxBytes: largestAccepted }).catch((error: unknown) => {
    throw fileErrorCode(error) === 'EFBIG' ? tooLarge(`more than ${formatBytes(largestAccepted)}, though it reported ${formatBytes(info.size)}`) : new Error(describeFileError(error, shown))
  })
  const kind = sniffFile(bytes)
  if (kind.kind === 'image')
    return attachment(bytes, shown, kind.mediaType, options.maxImageBytes ?? DEFAULT_IMAGE_MAX_BYTES, 'image')
  if (kind.kind === 'pdf')
    return attachment(bytes, shown, 'application/pdf', options.maxPdfBytes ?? DEFAULT_PDF_MAX_BYTES, 'document')
  if (kind.kind === 'binary')
    throw new Error(`Cannot read ${shown}: it is a binary file (${formatBytes(bytes.length)}). read_file shows text, images (PNG, JPEG, GIF, WebP) and PDFs; inspect other files with shell tools such as \`file\` or \`xxd | head\`.`)
  if (bytes.length > maxFileBytes)
    throw tooLarge(formatBytes(bytes.length))

  const behavior = fileToolBehaviorOf(ctx.behavior)
  const slice: ReadSlice = {
    offset: Math.max(1, args.offset ?? 1),
    limit: args.limit ?? behavior.readFileDefaults.limit ?? options.defaultLimit ?? DEFAULT_READ_LIMIT,
    maxBytes: behavior.readFileDefaults.maxBytes ?? options.maxBytes ?? DEFAULT_READ_MAX_BYTES,
    // A read made by another tool (a codemode script) is parsed, not read by the model: no prefix unless asked.
    lineNumbers: args.lineNumbers ?? (ctx.parentToolCallId === undefined && behavior.readLineNumbers),
  }
  const hash = contentHash(bytes)
  const session = ctx.session
  if (session && behavior.dedupReads && isDuplicateRead(session, resolved, hash, slice))
    return duplicateStub(shown, slice)

  const text = renderSlice(splitLines(decodeText(bytes)), slice, shown)
  if (session)
    recordRead(session, { path: resolved, hash, source: 'read_file', slice })
  return text
}

function duplicateStub(shown: string, slice: ReadSlice): string {
  return `[${shown} is unchanged since your last read_file of it with the same range (from line ${slice.offset}); `
    + 'that result is still current, so it is not repeated here. If you no longer have it, read with a different offset or limit.]'
}

/** Lines `offset … offset+limit-1`, numbered, cut at the last whole line under `maxBytes`, with a footer saying how to go on. */
export function renderSlice(lines: readonly string[], slice: ReadSlice, shown: string): string {
  const total = lines.length
  if (total === 0)
    return `(${shown} is empty)`
  if (slice.offset > total)
    throw new Error(`offset ${slice.offset} is past the end of ${shown}, which has ${total} line${total === 1 ? '' : 's'}.`)

  const last = Math.min(total, slice.offset + slice.limit - 1)
  const out: string[] = []
  let bytes = 0
  let shownThrough = slice.offset - 1
  let cutLine: number | undefined
  for (let number = slice.offset; number <= last; number++) {
    const row = slice.lineNumbers ? `${number}\t${lines[number - 1]}` : lines[number - 1]
    const rowBytes = Buffer.byteLength(row) + 1
    if (bytes + rowBytes > slice.maxBytes) {
      if (out.length === 0) {
        // A single line bigger than the cap: show its start rather than nothing.
        out.push(truncateTextToUtf8(row, slice.maxBytes))
        cutLine = number
        shownThrough = number
      }
      break
    }
    out.push(row)
    bytes += rowBytes
    shownThrough = number
  }

  const body = out.join('\n')
  const next = shownThrough + 1
  if (cutLine !== undefined) {
    const more = next <= total ? ` To go on, call read_file with offset=${next}.` : ''
    return `${body}\n\n[Line ${cutLine} is longer than the ${formatBytes(slice.maxBytes)} read cap and was cut; see the rest with a shell command such as \`cut -c\`.${more}]`
  }
  if (shownThrough < last)
    return `${body}\n\n[Output capped at ${formatBytes(slice.maxBytes)}: showing lines ${slice.offset}-${shownThrough} of ${total}. To read more, call read_file with offset=${next}.]`
  if (last < total)
    return `${body}\n\n[Showing lines ${slice.offset}-${last} of ${total}. To read more, call read_file with offset=${next}.]`
  return body
}

/** Media that left the request (`mediaKeepTurns`, `mediaBudget`) is read back from the session, which keeps it. */
function readAttachment(handle: string, ctx: ToolContext): ToolOutput {
  // The handle comes from the model: errors repeat only its start.
  const shown = handle.slice(0, 200)
  if (!ctx.session)
    throw new Error(`${shown} cannot be read: attachment handles are resolved from the session, and this agent has none.`)
  if (!isAttachmentHandle(handle))
    throw new Error(`${shown} is not an attachment handle: they look like attachment://media-<32 hex digits>. Copy the handle from the marker that replaced the media.`)
  const found = findAttachment(ctx.session.turns, handle)
  if (!found)
    throw new Error(`${shown} names no image or document recorded in this session.`)
  return [{ type: 'text', text: `${handle}:` }, found]
}

function attachment(bytes: Uint8Array, shown: string, mediaType: string, cap: number, type: 'image' | 'document'): ToolResultContent[] {
  if (bytes.length > cap)
    throw new Error(`${shown} is too large to attach (${formatBytes(bytes.length)}, limit ${formatBytes(cap)}).`)
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  const label = type === 'image' ? 'Image' : 'PDF document'
  const note: ToolResultContent = { type: 'text', text: `${label} ${shown} (${mediaType}, ${formatBytes(bytes.length)}):` }
  const name = baseName(shown)
  return type === 'image'
    ? [note, { type: 'image', data, mediaType, name }]
    : [note, { type: 'document', data, encoding: 'base64', mediaType, name }]
}

const EXTENSION = /\.[^.]*$/

function withoutExtension(name: string): string {
  return name.replace(EXTENSION, '')
}

/** "File not found", plus same-directory names that look like what was meant (a wrong extension or case). */
async function notFoundMessage(ctx: ToolContext, resolved: string, shown: string): Promise<string> {
  const context = executionContextOf(ctx)
  const wanted = baseName(resolved).toLowerCase()
  const stem = withoutExtension(wanted)
  try {
    const entries = await context.readDir(parentDir(resolved))
    const similar = entries
      .map(entry => entry.name)
      .filter(name => name.toLowerCase() === wanted || (stem.length > 0 && withoutExtension(name.toLowerCase()) === stem))
      .slice(0, 5)
    if (similar.length > 0)
      return `File not found: ${shown}. In the same directory: ${similar.join(', ')}.`
  }
  catch (error) {
    if (fileErrorCode(error) === 'ENOENT')
      return `File not found: ${shown} (its directory does not exist either).`
  }
  return `File not found: ${shown}.`
}

/** The built-in `read_file` tool with the default limits. */
export const readFile: ToolDef<ReadFileInput> = createReadFileTool()
