/**
 * Default limits of the built-in file tools. They live apart from the tools so
 * the tool descriptions (`zidane/tools/prompts`) can quote them without
 * importing the tools themselves.
 */

/** Lines `read_file` returns when the call gives no `limit`. */
export const DEFAULT_READ_LIMIT = 2000

/** Bytes of text `read_file` returns per call; the slice stops at the last whole line under it. */
export const DEFAULT_READ_MAX_BYTES = 100 * 1024

/** Largest text file `read_file` loads at all; bigger ones are better read with `sed -n` / `tail` in the shell. */
export const DEFAULT_READ_MAX_FILE_BYTES = 32 * 1024 * 1024

/** Largest image `read_file` attaches. Providers reject bigger ones (Anthropic caps an image at 5 MB). */
export const DEFAULT_IMAGE_MAX_BYTES = 5 * 1024 * 1024

/** Largest PDF `read_file` attaches. */
export const DEFAULT_PDF_MAX_BYTES = 20 * 1024 * 1024

/** Entries `list_files` returns before it stops. */
export const DEFAULT_LIST_LIMIT = 1000

/** Paths `glob` returns before it stops. */
export const DEFAULT_GLOB_LIMIT = 500

/** Matching lines `grep` returns before it stops. */
export const DEFAULT_GREP_LIMIT = 200

/** Files bigger than this are skipped by `grep` (they are logs or data, rarely source). */
export const DEFAULT_GREP_MAX_FILE_BYTES = 4 * 1024 * 1024

/** Characters of one matching line `grep` shows. */
export const GREP_LINE_CHARS = 300

/**
 * Directories the walking tools (`list_files`, `glob`, `grep`) do not enter
 * unless the caller names them: version-control internals and dependency or
 * cache trees that drown out the project's own files.
 */
export const IGNORED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '__pycache__',
  '.venv',
  '.mypy_cache',
  '.pytest_cache',
  '.next',
  '.turbo',
])
