/**
 * The file tools' knob slice and its value types. They live here, below the
 * tools and policies that read them, so the behavior type does not import the
 * code that consumes it.
 */

import type { KnobCheck } from './define'
import { globMatcher } from '../text/glob-match'
import { defineFields, defineKnobs, either, isBoolean, isStringList, oneOf, shape, wholeAtLeast } from './define'

/** Slice limits `read_file` applies when a call omits them. */
export interface ReadFileDefaults {
  /** Lines per read when the call gives no `limit`. */
  limit?: number
  /** Bytes of text per read. Images and PDFs keep the attachment caps. */
  maxBytes?: number
}

/** How `write_file` treats a path that already exists. */
export type WriteFileExistingMode = 'allow' | 'block-with-edit-recipe'

/**
 * What `write_file` may do to a path that already exists. Path lists are
 * globs, matched against the path relative to the working directory and
 * against the absolute path; `denyPaths` wins over `allowPaths`, and both win
 * over `mode` (default `'allow'`).
 */
export type WriteFileExistingPolicy
  = | WriteFileExistingMode
    | { mode?: WriteFileExistingMode, allowPaths?: readonly string[], denyPaths?: readonly string[] }

/** Knobs of the file tools (`read_file`, `edit`, `multi_edit`, `write_file`) and their policies. */
export interface FileKnobs {
  /** `read_file` prefixes lines with `cat -n`-style numbers (a call's `lineNumbers` wins). Default true. */
  readLineNumbers?: boolean
  /** `read_file` slice limits for calls that give none. Default: the tool's (2000 lines, 100 KiB). */
  readFileDefaults?: ReadFileDefaults
  /** An identical re-read of an unchanged file returns a short stub (needs a session). Default true. */
  dedupReads?: boolean
  /** `edit` / `multi_edit` refuse files not read in this session, and stale anchors after drift (needs a session). Default false. */
  requireReadBeforeEdit?: boolean
  /** Full-file reads through `shell` (`cat`, `head`, …) count as reads for `requireReadBeforeEdit`. Default true. */
  trackShellReads?: boolean
  /** Refuse `write_file` over existing files, pointing the model to `read_file` + `edit`. Default `'allow'`. */
  writeFileExistingPolicy?: WriteFileExistingPolicy
}

/** Defaults of the file slice. */
export const FILE_DEFAULTS = Object.freeze({
  readLineNumbers: true,
  dedupReads: true,
  requireReadBeforeEdit: false,
  trackShellReads: true,
  writeFileExistingPolicy: 'allow',
} satisfies FileKnobs)

const READ_FILE_FIELDS = defineFields<ReadFileDefaults>('readFileDefaults', {}, {
  limit: { doc: 'Lines per read when the call gives no `limit`.', defaultLabel: 'the tool\'s (2000)', check: wholeAtLeast(1) },
  maxBytes: { doc: 'Bytes of text per read; images and PDFs keep the attachment caps.', defaultLabel: 'the tool\'s (102400)', check: wholeAtLeast(1) },
})

const WRITE_MODE = oneOf('allow', 'block-with-edit-recipe')

/**
 * An array of globs that all compile. Checked when the knob is set: a glob
 * that does not compile never matches, so a bad `denyPaths` entry would
 * otherwise let through the writes it was meant to stop.
 */
const isGlobList: KnobCheck = (value) => {
  const strings = isStringList(value)
  if (strings)
    return strings
  for (const pattern of value as string[]) {
    try {
      globMatcher(pattern)
    }
    catch {
      return { path: '', expected: 'an array of valid globs' }
    }
  }
  return undefined
}

const WRITE_POLICY_FIELDS = defineFields<Exclude<WriteFileExistingPolicy, string>>('writeFileExistingPolicy', {}, {
  mode: { doc: 'What happens to a path no list names.', defaultLabel: '\'allow\'', check: WRITE_MODE },
  allowPaths: { doc: 'Globs that may be overwritten.', defaultLabel: 'none', check: isGlobList },
  denyPaths: { doc: 'Globs that may not be overwritten; wins over `allowPaths`.', defaultLabel: 'none', check: isGlobList },
})

/** The file-tool slice. */
export const FILE_KNOBS = defineKnobs<FileKnobs, typeof FILE_DEFAULTS>('file tools', FILE_DEFAULTS, {
  readLineNumbers: { doc: '`read_file` prefixes lines with their numbers; a call\'s `lineNumbers` wins.', check: isBoolean },
  readFileDefaults: { doc: '`read_file` slice limits for calls that give none; call arguments win.', defaultLabel: 'the tool\'s', check: shape(READ_FILE_FIELDS), fields: READ_FILE_FIELDS },
  dedupReads: { doc: 'An identical re-read of an unchanged file returns a short stub (needs a session).', check: isBoolean },
  requireReadBeforeEdit: { doc: '`edit` / `multi_edit` refuse files not read in this session (needs a session).', check: isBoolean },
  trackShellReads: { doc: 'Full-file reads through `shell` count as reads for `requireReadBeforeEdit`.', check: isBoolean },
  writeFileExistingPolicy: { doc: 'Refuse `write_file` over existing files, pointing the model to `read_file` + `edit`.', check: either(WRITE_MODE, shape(WRITE_POLICY_FIELDS)), fields: WRITE_POLICY_FIELDS },
})
