/**
 * Knob value types of the file tools that `AgentBehavior` declares. They live
 * here, below the tools and policies that read them, so the behavior type
 * does not import the code that consumes it.
 */

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
