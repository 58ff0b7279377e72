/**
 * The built-in `write_file` tool: create a file or replace its content,
 * through the agent's execution context, reporting whether it created,
 * changed or left the file as it was.
 */

import type { ToolDescriptionOverride } from './prompts'
import type { ToolContext, ToolDef } from './types'
import { Buffer } from 'node:buffer'
import { z } from 'zod'
import { executionContextOf } from '../contexts/from-tool-context'
import { describeFileError, displayPath, lineCount } from './file-content'
import { resolveToolDescription } from './prompts'
import { contentHash, recordRead } from './read-state'
import { tool } from './tool'

/** The arguments of the `write_file` tool. */
export interface WriteFileInput {
  path: string
  content: string
}

/** Options of `createWriteFileTool`. */
export interface WriteFileToolOptions {
  description?: ToolDescriptionOverride
}

const input = z.object({
  path: z.string().min(1).describe('Path of the file, absolute or relative to the working directory.'),
  content: z.string().describe('The complete new content of the file.'),
})

/** The `write_file` tool: create or replace a whole file. */
export function createWriteFileTool(options: WriteFileToolOptions = {}): ToolDef<WriteFileInput> {
  return tool({
    name: 'write_file',
    description: resolveToolDescription('write_file', options.description),
    input,
    isConcurrencySafe: false,
    execute: (args, ctx) => runWriteFile(args, ctx),
  })
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

async function runWriteFile(args: WriteFileInput, ctx: ToolContext): Promise<string> {
  const context = executionContextOf(ctx)
  const resolved = context.resolvePath(args.path)
  const shown = displayPath(context, resolved)
  const fail = (message: string): never => {
    ctx.reportOutcome('failed')
    throw new Error(message)
  }

  const info = await context.stat(resolved).catch((error: unknown) => fail(describeFileError(error, shown)))
  if (info?.type === 'directory')
    fail(`${shown} is a directory; write_file needs a file path.`)
  if (info?.type === 'other')
    fail(`${shown} is not a regular file (a device, a FIFO or a socket); write_file writes regular files only.`)

  const lines = plural(lineCount(args.content), 'line')
  // Only a file of the same size can already hold this content: one of gigabytes is never read to learn that it differs.
  if (info && info.size === Buffer.byteLength(args.content, 'utf8')) {
    const current = await context.readFile(resolved).catch((error: unknown) => fail(describeFileError(error, shown)))
    if (contentHash(current) === contentHash(args.content)) {
      remember(ctx, resolved, args.content)
      ctx.reportOutcome('noop')
      return `No change needed: ${shown} already has this content (${lines}).`
    }
  }

  // The context writes atomically and creates missing parent directories.
  await context.writeFile(resolved, args.content).catch((error: unknown) => fail(describeFileError(error, shown)))
  remember(ctx, resolved, args.content)
  ctx.reportOutcome(info ? 'updated' : 'created')
  return `${info ? 'Updated' : 'Created'} ${shown} (${lines}).`
}

/** The model wrote these bytes, so it knows them: later edits need no re-read. */
function remember(ctx: ToolContext, resolved: string, content: string): void {
  if (ctx.session)
    recordRead(ctx.session, { path: resolved, hash: contentHash(content), source: 'write_file' })
}

/** The built-in `write_file` tool. */
export const writeFile: ToolDef<WriteFileInput> = createWriteFileTool()
