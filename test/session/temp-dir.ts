import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** A temporary directory for this test file, removed when the file's tests are done. */
export function tempDirForFile(prefix: string): () => string {
  const root = mkdtempSync(join(tmpdir(), `zidane-${prefix}-`))
  let next = 0
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  // Each call: a fresh sub-directory path (not created; stores create their own).
  return () => join(root, `case-${next++}`)
}
