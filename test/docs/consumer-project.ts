// A consumer project for the docs tests: `zidane` resolves through the
// package's own exports map to a current `dist/`, every other package is the
// repository's copy, and `tsconfig.json` is what `tsc --init` writes.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const tsc = join(root, 'node_modules/typescript/bin/tsc')

/** Newest modification time under `path` (a file or a directory). */
function newestMtime(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory())
    return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map(entry => newestMtime(join(path, entry))))
}

function isBuilt(): boolean {
  let built = 0
  try {
    built = statSync(join(root, 'dist', 'index.d.ts')).mtimeMs
  }
  catch {}
  const sources = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'package.json')), newestMtime(join(root, 'tsup.config.ts')), newestMtime(join(root, 'scripts', 'rechunk-dist.ts')))
  return built > sources
}

// Outside the checkout (node_modules may be shared with other checkouts), one per checkout.
const BUILD_LOCK = join(tmpdir(), `zidane-build-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.lock`)
/** A lock older than this belongs to a build that died. */
const STALE_LOCK_MS = 20 * 60_000

/**
 * Build `dist/` when it is missing or older than the sources, so a local `npm test` checks the current code.
 * Test files that need the build run in parallel workers: one builds while the others wait for it (the build
 * empties `dist/` first, so two at once would break each other).
 */
export function ensureBuilt(): void {
  if (isBuilt())
    return
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK)
      break
    }
    catch {
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > STALE_LOCK_MS)
        rmSync(BUILD_LOCK, { recursive: true, force: true })
      else
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500)
    }
  }
  try {
    if (!isBuilt())
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' })
  }
  finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true })
  }
}

/** A fresh project in a temp dir; `type` is its package.json `type` (omitted: CommonJS, as `npm init -y` makes it). */
export function consumerProject(type?: 'module'): string {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-consumer-'))
  const modules = join(dir, 'node_modules')
  mkdirSync(modules)
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (!entry.startsWith('.') && entry !== 'zidane')
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry))
  }
  symlinkSync(root, join(modules, 'zidane'))
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, ...(type ? { type } : {}) })}\n`)
  execFileSync(process.execPath, [tsc, '--init'], { cwd: dir, stdio: 'pipe' })
  return dir
}
