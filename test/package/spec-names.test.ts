import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import names from '../fixtures/spec-names.json'

// The zidane/types reference page is the contract; test/fixtures/spec-names.json
// lists every name it gives (its headings, its re-exports, the type names its
// signatures use). Each must be exported from `zidane/types`, unless the list
// says why it is absent, and an absent name must really be nowhere in src/.

const root = fileURLToPath(new URL('../..', import.meta.url))
const entry = join(root, 'src/types.ts')

/** Every name `src/types.ts` exports, types and values alike, as the compiler resolves them. */
function exportedNames(): Set<string> {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  })
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!
  return new Set(checker.getExportsOfModule(module).map(symbol => symbol.name))
}

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(item =>
    item.isDirectory() ? sourceFiles(join(dir, item.name)) : item.name.endsWith('.ts') ? [join(dir, item.name)] : [])
}

const absent = names.absent as Record<string, string>
const listed = [...new Set([...names.documented, ...names.reexported, ...names.referenced])]

describe('the zidane/types contract names', () => {
  const exported = exportedNames()

  it('lists enough names that the check means something', () => {
    expect(names.documented.length).toBeGreaterThan(80)
    expect(names.reexported.length).toBeGreaterThan(60)
  })

  it.each(listed.filter(name => !(name in absent)))('%s is exported from zidane/types', (name) => {
    expect(exported.has(name)).toBe(true)
  })

  it('exports the values it lists as values, not only as types', async () => {
    const runtime = await import('../../src/types')
    expect(names.values.filter(name => !(name in runtime))).toEqual([])
  })

  it('names a reason for every absent name, and an absent name is declared nowhere in src/', () => {
    const names = Object.keys(absent)
    // With nothing absent there is nothing to look for (an empty alternation would match every declaration).
    const declared = new RegExp(`\\b(?:interface|type|class|const|function) (${names.join('|')})\\b`)
    const found = names.length === 0 ? [] : sourceFiles(join(root, 'src')).filter(file => declared.test(readFileSync(file, 'utf8')))
    expect(found).toEqual([])
    for (const [name, reason] of Object.entries(absent)) {
      expect(listed).toContain(name)
      expect(reason.length, name).toBeGreaterThan(10)
      expect(exported.has(name)).toBe(false)
    }
  })
})
