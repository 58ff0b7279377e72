/**
 * Large-result persistence: tool outputs past a size are written to disk and
 * the conversation keeps a fixed-format stub (a preview and the file's path),
 * so a huge output costs its bytes once instead of on every request.
 */

import { defineKnobs, isLimit, isString, isStringList } from './define'

/** The persistence slice. */
export interface PersistKnobs {
  /**
   * Tool results larger than this many UTF-8 bytes (after `tool:transform`)
   * are written to `persistDir` and replaced by a stub with a 2 KiB preview
   * and the path. `0` or unset: off. Needs `persistDir`. Default off.
   */
  persistThreshold?: number
  /**
   * Directory the payloads are written to, one file per result named
   * `tool-result-<conversation>-<turn>-<digest>-<call id>.txt` (written to a
   * temporary name, then renamed), so no two results, sessions or repeated
   * call ids share a file. Default off.
   */
  persistDir?: string
  /** Canonical tool names whose results are never persisted, whatever their size. Default none. */
  persistExcludeTools?: readonly string[]
  /**
   * After each write, this conversation's oldest payloads under `persistDir`
   * (by mtime) are removed until its payloads fit; files zidane did not name,
   * other conversations' files and the files of the turn being answered are
   * never removed. Default off.
   */
  persistMaxBytes?: number
}

/** The persistence slice: off until `persistThreshold` and `persistDir` are set. */
export const PERSIST_KNOBS = defineKnobs<PersistKnobs, Record<never, never>>('large results', {}, {
  persistThreshold: { doc: 'Tool results above this many bytes go to disk; the conversation keeps a stub with a preview and the path.', defaultLabel: 'off', check: isLimit },
  persistDir: { doc: 'Where persisted results are written, one file per result, atomically, named so results never collide.', defaultLabel: 'off', check: isString },
  persistExcludeTools: { doc: 'Canonical tool names whose results are never persisted.', defaultLabel: 'none', check: isStringList },
  persistMaxBytes: { doc: 'Cap on one conversation\'s payloads under `persistDir`: its oldest files are removed after each write, never the current turn\'s.', defaultLabel: 'off', check: isLimit },
})
