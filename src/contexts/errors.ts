/**
 * File operation errors shared by every context. Node's own errors already
 * carry `code`; contexts that talk to a container or a remote sandbox build
 * the same shape so tools can branch on `code` whatever the context.
 */

/** The file error codes every execution context reports, whatever its backend. */
export type ContextFileErrorCode = 'ENOENT' | 'EISDIR' | 'ENOTDIR' | 'EEXIST' | 'EACCES' | 'EIO' | 'EFBIG'

/** A file operation failed in a context that is not the local file system, with the same codes Node uses. */
export class ContextFileError extends Error {
  override name = 'ContextFileError'
  readonly code: ContextFileErrorCode
  readonly path: string

  constructor(code: ContextFileErrorCode, path: string, detail?: string) {
    super(`${code}: ${describe(code)}, '${path}'${detail ? ` (${detail})` : ''}`)
    this.code = code
    this.path = path
  }
}

function describe(code: ContextFileErrorCode): string {
  switch (code) {
    case 'ENOENT': return 'no such file or directory'
    case 'EISDIR': return 'is a directory'
    case 'ENOTDIR': return 'not a directory'
    case 'EEXIST': return 'already exists'
    case 'EACCES': return 'permission denied'
    case 'EIO': return 'input/output error'
    case 'EFBIG': return 'file too large'
  }
}

/** The `code` of a file error from any context (Node's or `ContextFileError`). */
export function fileErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code
  return undefined
}

/** Whether a file error means the path does not exist, whichever context raised it. */
export function isNotFoundError(error: unknown): boolean {
  return fileErrorCode(error) === 'ENOENT'
}
