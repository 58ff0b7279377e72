import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { LAYERS } from './layers'

const src = fileURLToPath(new URL('../../src', import.meta.url))

/** Every `.ts` file under `dir`, as paths relative to `src/` with `/` separators. */
function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      out.push(...sourceFiles(path))
    else if (entry.name.endsWith('.ts'))
      out.push(relative(src, path).split('\\').join('/'))
  }
  return out
}

/**
 * The module specifiers a source imports: static `import` and `export … from`
 * (type-only included), `import x = require()`, dynamic `import()` and
 * `typeof import()` types. TypeScript's own pre-processor finds them, so
 * comments and strings that merely look like imports are not counted.
 */
export function importSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map(file => file.fileName)
}

/** Resolve a relative specifier the way the bundler does (`.js` → `.ts`, folder → `index.ts`). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(src, dirname(from), specifier)
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]
  const hit = candidates.find(path => path.endsWith('.ts') && existsSync(path) && statSync(path).isFile())
  return hit && relative(src, hit).split('\\').join('/')
}

/** The import graph of `src/`: file → files it imports (relative specifiers only). */
function importGraph(): { graph: Map<string, string[]>, unresolved: string[] } {
  const graph = new Map<string, string[]>()
  const unresolved: string[] = []
  for (const file of sourceFiles(src)) {
    const deps = new Set<string>()
    for (const specifier of importSpecifiers(readFileSync(join(src, file), 'utf8'))) {
      if (!specifier.startsWith('.'))
        continue
      const target = resolveRelative(file, specifier)
      if (target === undefined)
        unresolved.push(`${file}: ${specifier}`)
      else
        deps.add(target)
    }
    graph.set(file, [...deps].sort())
  }
  return { graph, unresolved }
}

/** One cycle per strongly connected component (Tarjan), printed as a path that returns to its start. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const dep of graph.get(node) ?? []) {
      if (!index.has(dep)) {
        visit(dep)
        low.set(node, Math.min(low.get(node)!, low.get(dep)!))
      }
      else if (onStack.has(dep)) {
        low.set(node, Math.min(low.get(node)!, index.get(dep)!))
      }
    }
    if (low.get(node) !== index.get(node))
      return
    const component = new Set<string>()
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.add(member)
    } while (member !== node)
    if (component.size > 1 || (graph.get(node) ?? []).includes(node))
      cycles.push(cycleThrough(node, component, graph))
  }
  for (const node of graph.keys()) {
    if (!index.has(node))
      visit(node)
  }
  return cycles
}

/** A shortest path from `start` back to itself inside one component (breadth first). */
function cycleThrough(start: string, component: ReadonlySet<string>, graph: ReadonlyMap<string, readonly string[]>): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const dep of graph.get(node) ?? []) {
      if (!component.has(dep))
        continue
      if (dep === start) {
        const path = [start]
        for (let at = node; at !== start; at = previous.get(at)!)
          path.splice(1, 0, at)
        return [...path, start]
      }
      if (!previous.has(dep)) {
        previous.set(dep, node)
        queue.push(dep)
      }
    }
  }
  return [start, start]
}

/** The layer of a file: the longest matching entry of the table, or `undefined` when none matches. */
export function layerOf(file: string, layers: readonly (readonly string[])[] = LAYERS): number | undefined {
  let best: { layer: number, length: number } | undefined
  layers.forEach((entries, layer) => {
    for (const entry of entries) {
      const matches = entry.endsWith('/') ? file.startsWith(entry) : file === entry
      if (matches && (best === undefined || entry.length > best.length))
        best = { layer, length: entry.length }
    }
  })
  return best?.layer
}

describe('layering of src/', () => {
  const { graph, unresolved } = importGraph()

  it('finds every kind of import, type-only and dynamic included', () => {
    const text = [
      `import type { A } from './a'`,
      `import { b } from './b'`,
      `export type { C } from './c'`,
      `export * from './d'`,
      `const e = await import('./e')`,
      `type F = typeof import('./f')`,
      `import './g'`,
      `import h = require('./h')`,
      `// import { i } from './i'`,
      `const s = "from './j'"`,
    ].join('\n')
    expect(importSpecifiers(text).sort()).toEqual(['./a', './b', './c', './d', './e', './f', './g', './h'])
  })

  it('resolves every relative import', () => {
    expect(unresolved).toEqual([])
    expect(graph.size).toBeGreaterThan(100)
  })

  it('has no import cycle', () => {
    const cycles = findCycles(graph).map(cycle => cycle.join(' -> '))
    expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([])
  })

  it('reports a cycle it is given, as a closed path', () => {
    const sample = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts', 'd.ts']], ['d.ts', []]])
    expect(findCycles(sample)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']])
  })

  it('places every file in a layer', () => {
    expect([...graph.keys()].filter(file => layerOf(file) === undefined)).toEqual([])
  })

  it('never lets a lower layer import a higher one', () => {
    const violations: string[] = []
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        if (layerOf(dep)! > layerOf(file)!)
          violations.push(`${file} (layer ${layerOf(file)}) imports ${dep} (layer ${layerOf(dep)})`)
      }
    }
    expect(violations, `upward imports:\n${violations.join('\n')}`).toEqual([])
  })

  it('keeps core/ a leaf: it imports nothing but itself and errors.ts, and the errors import nothing but errors/', () => {
    const isErrors = (file: string) => file === 'errors.ts' || file.startsWith('errors/')
    const outside = [...graph].flatMap(([file, deps]) => {
      if (file.startsWith('core/'))
        return deps.filter(dep => !dep.startsWith('core/') && dep !== 'errors.ts').map(dep => `${file} imports ${dep}`)
      if (isErrors(file))
        return deps.filter(dep => !dep.startsWith('errors/')).map(dep => `${file} imports ${dep}`)
      return []
    })
    expect(outside).toEqual([])
    expect([...graph.keys()].filter(file => file.startsWith('core/')).length).toBeGreaterThan(5)
    expect([...graph.get('errors.ts') ?? []].length).toBeGreaterThan(5)
  })

  it('lets the longest entry of the table win', () => {
    const table = [['x/'], ['x/top.ts']]
    expect(layerOf('x/low.ts', table)).toBe(0)
    expect(layerOf('x/top.ts', table)).toBe(1)
    expect(layerOf('y.ts', table)).toBeUndefined()
  })
})
