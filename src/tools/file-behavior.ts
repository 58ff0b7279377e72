/**
 * The `AgentBehavior` knobs the file tools and their policies read, with their
 * defaults. Read through `fileToolBehaviorOf` so a value of the wrong type is
 * ignored (falls back to the default) instead of changing what a tool does.
 */

import type { AgentBehavior } from '../knobs/behavior'
import type { ReadFileDefaults, WriteFileExistingPolicy } from '../knobs/file-knobs'
import { mergeObjects } from '../core/merge-objects'
import { FILE_KNOBS } from '../knobs/file-knobs'

/** Fields of `AgentBehavior` the file tools read. */
export type FileToolBehavior = Pick<AgentBehavior, 'readLineNumbers' | 'readFileDefaults' | 'dedupReads' | 'requireReadBeforeEdit' | 'trackShellReads' | 'writeFileExistingPolicy'>

export interface ResolvedFileToolBehavior {
  readLineNumbers: boolean
  readFileDefaults: ReadFileDefaults
  dedupReads: boolean
  requireReadBeforeEdit: boolean
  trackShellReads: boolean
  writeFileExistingPolicy: WriteFileExistingPolicy
}

/** What the file tools act on when no knob is set: the file slice's defaults, and no `read_file` limits of the knob's own. */
export const FILE_TOOL_BEHAVIOR_DEFAULTS: Readonly<ResolvedFileToolBehavior> = Object.freeze(mergeObjects(FILE_KNOBS.defaults, { readFileDefaults: Object.freeze({}) }))

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined
}

function readDefaults(value: unknown): ReadFileDefaults {
  if (typeof value !== 'object' || value === null)
    return FILE_TOOL_BEHAVIOR_DEFAULTS.readFileDefaults
  const raw = value as Record<string, unknown>
  return { limit: positiveInt(raw.limit), maxBytes: positiveInt(raw.maxBytes) }
}

function writePolicy(value: unknown): WriteFileExistingPolicy {
  if (value === 'allow' || value === 'block-with-edit-recipe')
    return value
  if (typeof value === 'object' && value !== null)
    return value as WriteFileExistingPolicy
  return FILE_TOOL_BEHAVIOR_DEFAULTS.writeFileExistingPolicy
}

/** Read the file-tool knobs from a run's behavior, defaults applied. */
export function fileToolBehaviorOf(behavior: object): ResolvedFileToolBehavior {
  const raw = behavior as Record<string, unknown>
  const defaults = FILE_TOOL_BEHAVIOR_DEFAULTS
  return {
    readLineNumbers: flag(raw.readLineNumbers, defaults.readLineNumbers),
    readFileDefaults: readDefaults(raw.readFileDefaults),
    dedupReads: flag(raw.dedupReads, defaults.dedupReads),
    requireReadBeforeEdit: flag(raw.requireReadBeforeEdit, defaults.requireReadBeforeEdit),
    trackShellReads: flag(raw.trackShellReads, defaults.trackShellReads),
    writeFileExistingPolicy: writePolicy(raw.writeFileExistingPolicy),
  }
}
