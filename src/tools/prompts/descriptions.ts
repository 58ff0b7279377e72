/**
 * The descriptions the model reads for each built-in file tool. They are
 * exported so a host can quote, extend or replace them (see `index.ts`).
 */

import {
  DEFAULT_GLOB_LIMIT,
  DEFAULT_GREP_LIMIT,
  DEFAULT_LIST_LIMIT,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_BYTES,
} from '../file-limits'

/** What the model reads about `read_file`. */
export const READ_FILE_DESCRIPTION = [
  'Read a file from the workspace.',
  `Text comes back one line per row, each prefixed with its 1-based line number and a tab (like \`cat -n\`); the prefix is not part of the file. `
  + `Without \`offset\`/\`limit\` you get up to ${DEFAULT_READ_LIMIT} lines from the start (and at most ${Math.round(DEFAULT_READ_MAX_BYTES / 1024)} KiB); `
  + 'a footer tells you the `offset` to pass to read the rest. `offset` is the 1-based line to start at.',
  'Images (PNG, JPEG, GIF, WebP) and PDFs are returned as attachments you can look at. Other binary files are refused.',
  'Read a file before you edit it, and read several files in one turn when you need them all.',
].join('\n\n')

/** What the model reads about `write_file`. */
export const WRITE_FILE_DESCRIPTION = [
  'Write a whole file: create it, or replace everything in it. Missing parent directories are created.',
  'To change part of an existing file, prefer edit or multi_edit: they send only the change and cannot drop lines by accident.',
].join('\n\n')

/** What the model reads about `edit`. */
export const EDIT_DESCRIPTION = [
  'Replace text in a file: `old_string` must occur exactly once (or set `replace_all: true` to replace every occurrence) and is replaced by `new_string`.',
  'Copy `old_string` from the file exactly, indentation and whitespace included; include enough surrounding lines to make it unique. '
  + 'Line-number prefixes copied from read_file output are removed when every line carries one.',
  'When nothing matches, the error shows the closest text in the file. Use multi_edit for several changes to one file.',
].join('\n\n')

/** What the model reads about `multi_edit`. */
export const MULTI_EDIT_DESCRIPTION = [
  'Make several replacements in one file in one call. `edits` are applied in order, each to the result of the ones before it, with the same rules as edit.',
  'All or nothing: if any edit fails to match, no edit is applied and the error names the failing edit.',
].join('\n\n')

/** What the model reads about `list_files`. */
export const LIST_FILES_DESCRIPTION = [
  'List the files and directories under a directory (default: the working directory), recursively, one path per line, '
  + 'relative to the working directory (usable as-is in other tools); directories end with `/`.',
  `Version-control and dependency directories such as .git and node_modules are shown but not entered. The listing stops after ${DEFAULT_LIST_LIMIT} entries; `
  + 'list a subdirectory to see more.',
].join('\n\n')

/** What the model reads about `glob`. */
export const GLOB_DESCRIPTION = [
  'Find files whose path matches a glob pattern, relative to `path` (default: the working directory).',
  '`*` matches within one path segment, `**` across directories, `?` one character, `[abc]` a set, `{a,b}` alternatives: '
  + '`**/*.ts` finds TypeScript files at any depth, `src/*.ts` only directly in src.',
  `Directories such as .git and node_modules are skipped unless the pattern names them. At most ${DEFAULT_GLOB_LIMIT} paths are returned, sorted.`,
].join('\n\n')

/** What the model reads about `grep`. */
export const GREP_DESCRIPTION = [
  'Search file contents with a regular expression (RE2 syntax, as in ripgrep) and get `path:line: text` for each matching line.',
  '`path` is a file or directory to search (default: the working directory); `glob` limits the files searched, '
  + 'matched against the file name (`*.ts`) or, when it contains a slash, the path (`src/**/*.ts`).',
  `Binary files and directories such as .git and node_modules are skipped. At most ${DEFAULT_GREP_LIMIT} matches are returned.`,
].join('\n\n')

/** The default description of every built-in file tool, by tool name. */
export interface ToolPrompts {
  read_file: string
  write_file: string
  edit: string
  multi_edit: string
  list_files: string
  glob: string
  grep: string
}

/** Every built-in file tool's description, by tool name. */
export const TOOL_PROMPTS: Readonly<ToolPrompts> = Object.freeze({
  read_file: READ_FILE_DESCRIPTION,
  write_file: WRITE_FILE_DESCRIPTION,
  edit: EDIT_DESCRIPTION,
  multi_edit: MULTI_EDIT_DESCRIPTION,
  list_files: LIST_FILES_DESCRIPTION,
  glob: GLOB_DESCRIPTION,
  grep: GREP_DESCRIPTION,
})
