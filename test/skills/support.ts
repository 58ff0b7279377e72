import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { vi } from 'vitest'

/** The skills written in the shape public skill repositories use (long bodies, scripts/, references/, assets/). */
export const LIBRARY = fileURLToPath(new URL('../fixtures/skills/library', import.meta.url))

/** A scratch folder removed by the returned `cleanup`. */
export function scratch(prefix = 'zidane-skills-'): { dir: string, cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Write files under `root`, keyed by relative path. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

/** A copy of the library in a scratch folder (tests add links and bad skills next to it). */
export function libraryCopy(root: string): string {
  const target = join(root, 'library')
  cpSync(LIBRARY, target, { recursive: true })
  return target
}

/** A `SKILL.md` with the given frontmatter lines and body. */
export function skillFile(frontmatter: string, body = 'Do the thing, step by step.'): string {
  return `---\n${frontmatter}\n---\n\n${body}\n`
}

/** Collect the process warnings a test provokes (and keep them off the console); restored by `vi.restoreAllMocks`. */
export function captureWarnings(): string[] {
  const warnings: string[] = []
  vi.spyOn(process, 'emitWarning').mockImplementation(((message: string) => {
    warnings.push(message)
  }) as typeof process.emitWarning)
  return warnings
}

/** `work`, or a rejection once `ms` pass: a read that blocks for ever fails the test instead of hanging it. */
export async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still blocked after ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, late])
  }
  finally {
    clearTimeout(timer)
  }
}
