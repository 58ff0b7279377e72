/**
 * Shared helpers of the file tools: what kind of bytes a file holds, how to
 * show a path to the model, and how to turn context file errors into
 * messages the model can act on.
 */

import type { ExecutionContext } from '../contexts/types'
import { fileErrorCode } from '../contexts/errors'
import { clipEcho } from '../text/clip-echo'

export type FileKind
  = | { kind: 'text' }
    | { kind: 'binary' }
    | { kind: 'image', mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' }
    | { kind: 'pdf' }

const SNIFF_BYTES = 8192

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length)
    return false
  return prefix.every((byte, index) => bytes[at + index] === byte)
}

const ascii = (text: string) => Array.from(text, char => char.charCodeAt(0))

/**
 * Classify file bytes by their magic numbers, not the file name: a `.png` that
 * holds text is text. Text is anything without NUL bytes whose sample is not
 * mostly control characters (escape codes in logs are fine).
 */
export function sniffFile(bytes: Uint8Array): FileKind {
  if (startsWith(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    return { kind: 'image', mediaType: 'image/png' }
  if (startsWith(bytes, [0xFF, 0xD8, 0xFF]))
    return { kind: 'image', mediaType: 'image/jpeg' }
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a')))
    return { kind: 'image', mediaType: 'image/gif' }
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8))
    return { kind: 'image', mediaType: 'image/webp' }
  if (startsWith(bytes, ascii('%PDF-')))
    return { kind: 'pdf' }
  return looksBinary(bytes) ? { kind: 'binary' } : { kind: 'text' }
}

/** NUL bytes, or more than one control character in ten, within the first 8 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  return controlsSayBinary(bytes.length, i => bytes[i])
}

/**
 * The same rule for text already decoded, over its first 8 Ki UTF-16 units:
 * UTF-16 text, whose bytes are half NULs, passes here, and U+FFFD is not a
 * control character, so a page decoded in the wrong charset passes too.
 */
export function decodedLooksBinary(text: string): boolean {
  return controlsSayBinary(text.length, i => text.charCodeAt(i))
}

/** The rule both apply, to `length` units (bytes or UTF-16 code units) read through `unitAt`. */
function controlsSayBinary(length: number, unitAt: (index: number) => number): boolean {
  const end = Math.min(length, SNIFF_BYTES)
  let control = 0
  for (let i = 0; i < end; i++) {
    const unit = unitAt(i)
    if (unit === 0)
      return true
    // Tab, newline, form feed, carriage return and escape are normal in text files and logs.
    if (unit < 0x20 && unit !== 0x09 && unit !== 0x0A && unit !== 0x0C && unit !== 0x0D && unit !== 0x1B)
      control++
  }
  return end > 0 && control / end > 0.1
}

const decoder = new TextDecoder('utf-8')

/** Text of UTF-8 bytes; a leading byte order mark is dropped, and a byte that is not UTF-8 becomes U+FFFD. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes)
}

/** The UTF-8 byte order mark as text, which `decodeText` drops. */
export const UTF8_BOM = '\uFEFF'

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xEF && bytes[1] === 0xBB && bytes[2] === 0xBF
}

/**
 * Lines of a text, without their terminators (`\r\n` or `\n`). A final line
 * terminator does not start another line, so `"a\n"` is one line, like `wc -l`.
 */
export function splitLines(text: string): string[] {
  if (text === '')
    return []
  const lines = text.split('\n')
  if (lines.at(-1) === '')
    lines.pop()
  return lines.map(line => line.endsWith('\r') ? line.slice(0, -1) : line)
}

/** Number of lines as `splitLines` counts them. */
export function lineCount(text: string): number {
  return splitLines(text).length
}

/**
 * The path as the model should see it: relative to the context's working
 * directory when inside it (short, and valid as input to every tool),
 * absolute otherwise.
 */
export function displayPath(context: ExecutionContext, resolved: string): string {
  const root = context.cwd.endsWith('/') ? context.cwd : `${context.cwd}/`
  if (resolved === context.cwd)
    return '.'
  return resolved.startsWith(root) ? resolved.slice(root.length) : resolved
}

/** Join a directory and a relative path in the context's POSIX namespace. */
export function joinPath(dir: string, name: string): string {
  if (name.startsWith('/'))
    return name
  if (dir === '' || dir === '.')
    return name
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`
}

export function parentDir(path: string): string {
  const index = path.lastIndexOf('/')
  if (index <= 0)
    return index === 0 ? '/' : '.'
  return path.slice(0, index)
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Characters of a system error message a result carries; Node's name the path again, whole. */
const ERROR_MESSAGE_CHARS = 300

/** A file operation failure, said in terms of what the model should do next. */
export function describeFileError(error: unknown, path: string): string {
  const shown = clipEcho(path)
  switch (fileErrorCode(error)) {
    case 'ENOENT': return `File not found: ${shown}`
    case 'EISDIR': return `${shown} is a directory, not a file; use list_files to see what it holds`
    case 'ENOTDIR': return `${shown}: a part of this path is a file, not a directory`
    case 'EACCES':
    case 'EPERM': return `Permission denied: ${shown}`
    default: return `Could not access ${shown}: ${clipEcho(error instanceof Error ? error.message : String(error), ERROR_MESSAGE_CHARS)}`
  }
}

/** A directory named in a sentence: `.` reads badly there. */
export function describeDir(shown: string): string {
  return shown === '.' ? 'the working directory' : shown
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024)
    return `${bytes} B`
  if (bytes < 1024 * 1024)
    return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}
