// Post-build step: fewer files for `import 'zidane'` to load.
//
// The build splits code shared by the package's 25 entries into chunks, one
// per set of entries that share it, so the root entry alone loaded 39 files.
// Under Node each ES module costs a resolution, a read and a link of its own:
// the root took 58–64 ms to import as 39 files against 43–50 ms for the same
// code in three (docs/decisions/2026-12-04-fewer-chunks-for-the-root.md).
// This step re-chunks the built JavaScript with Rollup, changing nothing but
// which file a module's code sits in:
//
// - `base`: everything the light entries (`zidane/types`, `zidane/errors`)
//   load, so they stay light;
// - `core`: the rest of what the root entry loads before it runs;
// - every other module (what loads lazily, what only another entry needs)
//   where Rollup's own splitting puts it.
//
// Dynamic imports stay dynamic, entry files keep their names, and the
// declarations are untouched. tsup runs it when its JavaScript is written
// (`onSuccess` in tsup.config.ts), for `dist/` and for the benchmarks' build.

import type { GetManualChunk, GetModuleInfo } from 'rollup'
import { chmod, cp, readdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { rollup } from 'rollup'

/** The entries whose static imports form the `base` chunk: they stay light. */
const LIGHT_ENTRIES = ['types', 'errors']
const ROOT = 'index'
/** An absolute path on Windows (`C:\\…`), which is a file of the build, not a package. */
const WINDOWS_PATH = /^[a-z]:\\/i

/**
 * Re-chunk the JavaScript tsup wrote to `dir` for the entries `entryNames`
 * (the keys of its `entry`, such as `index` or `providers/anthropic`).
 * Returns a line saying what it did.
 */
export async function rechunkDist(outDir: string, entryNames: readonly string[]): Promise<string> {
  // Rollup names modules by absolute path, and the groups below look entries up by those names.
  const dir = resolve(outDir)
  const files = (await readdir(dir, { recursive: true })).filter(file => file.endsWith('.js'))
  const entries: Record<string, string> = {}
  for (const name of entryNames)
    entries[name] = join(dir, `${name}.js`)
  if (!entries[ROOT])
    throw new Error(`rechunk-dist: no ${ROOT} among the entries`)

  const bundle = await rollup({
    input: entries,
    // Packages and the package's own `#` imports are resolved where zidane is installed.
    external: id => !id.startsWith('.') && !id.startsWith('/') && !WINDOWS_PATH.test(id),
    treeshake: false,
    onLog(level, log, handler) {
      // Chunks of the first build import each other in cycles already; that is not news.
      if (log.code === 'CIRCULAR_DEPENDENCY')
        return
      handler(level, log)
    },
  })
  const out = `${dir}.rechunk`
  await rm(out, { recursive: true, force: true })
  const { output } = await bundle.write({
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    manualChunks: chunkGroups(entries),
    hoistTransitiveImports: false,
  })
  await bundle.close()

  // Swap the JavaScript: every file tsup wrote goes, the re-chunked ones come in; declarations stay.
  for (const file of files)
    await rm(join(dir, file))
  await cp(out, dir, { recursive: true })
  await rm(out, { recursive: true, force: true })
  const chunks = new Map<string, readonly string[]>()
  for (const item of output) {
    if (item.type !== 'chunk')
      continue
    chunks.set(item.fileName, item.imports)
    // A file that starts with a shebang is a command (`bin/zidane`): executable, as tsup leaves it.
    if (item.code.startsWith('#!'))
      await chmod(join(dir, item.fileName), 0o755)
  }
  const rootFiles = reachable(`${ROOT}.js`, name => chunks.get(name)).size
  return `rechunk-dist: ${files.length} files became ${chunks.size}; the root entry loads ${rootFiles} at once`
}

/**
 * `base` for what the light entries load at once, `core` for the rest of
 * what the root entry does; every other module where Rollup puts it. Entry
 * files stay files of their own.
 */
function chunkGroups(entries: Readonly<Record<string, string>>): GetManualChunk {
  let groups: { base: Set<string>, core: Set<string> } | undefined
  const entryFiles = new Set(Object.values(entries))
  return (id, { getModuleInfo }) => {
    if (!groups) {
      const base = new Set<string>()
      for (const name of LIGHT_ENTRIES) {
        if (entries[name] === undefined)
          continue
        for (const module of staticClosure(entries[name], getModuleInfo))
          base.add(module)
      }
      groups = { base, core: staticClosure(entries[ROOT], getModuleInfo) }
    }
    if (entryFiles.has(id))
      return undefined
    if (groups.base.has(id))
      return 'base'
    if (groups.core.has(id))
      return 'core'
    return undefined
  }
}

/** The modules `entry` loads before it runs: it and its static imports, transitively. */
function staticClosure(entry: string, getModuleInfo: GetModuleInfo): Set<string> {
  return reachable(entry, (id) => {
    const info = getModuleInfo(id)
    return info && !info.isExternal ? info.importedIds : undefined
  })
}

/** `start` and everything `next` leads to from it, each once; an item `next` gives nothing for is left out. */
function reachable(start: string, next: (item: string) => readonly string[] | undefined): Set<string> {
  const seen = new Set<string>()
  const stack = [start]
  while (stack.length > 0) {
    const item = stack.pop()!
    if (seen.has(item))
      continue
    const onward = next(item)
    if (onward === undefined)
      continue
    seen.add(item)
    for (const following of onward)
      stack.push(following)
  }
  return seen
}
