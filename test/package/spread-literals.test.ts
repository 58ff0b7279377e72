import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * On Node 20 an object literal that begins with a spread and has anything
 * after it (`{ ...base, key }`, `{ ...a, ...b }`) is built through a runtime
 * call per member after the spread, about 0.3 µs each: hundreds of times the
 * cost of the same literal begun with a plain property. The sources build such
 * objects with `mergeObjects` (`src/core/merge-objects.ts`) instead, except
 * where they run once per run or less; this keeps a new one from slipping in.
 */

const src = fileURLToPath(new URL('../../src', import.meta.url))
/**
 * Files whose slow literals run once per run, per agent, per container command
 * or when the module loads, never per turn, call or delta: the spread is kept
 * there for its types (computed keys, generic unions), which `mergeObjects`
 * would have to cast away.
 */
const NOT_PER_TURN = new Map([
  ['core/merge-objects.ts', 'the fallback for a source with a `__proto__` key, which is the spread itself'],
  ['hooks/bus.ts', 'the event-name table, built when the module loads'],
  ['knobs/behavior.ts', 'the behaviour merged once per run'],
  ['knobs/codemode-knobs.ts', 'codemode settings resolved once per run'],
  ['skills/skill-set.ts', 'skills read once per agent'],
  ['contexts/docker.ts', 'once per container command, beside a process spawn'],
  ['durable/effects.ts', 'durable effects made once per run, and a journal entry beside a journal write'],
  ['durable/restate/journaled-store.ts', 'once per store'],
])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every object literal of `text` that begins with a spread and has more members, as `line: text`. */
export function slowSpreadLiterals(fileName: string, text: string): { line: number, text: string }[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const found: { line: number, text: string }[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0]))
      found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().replace(/\s+/g, ' ').slice(0, 80) })
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

describe('object literals on the loop\'s paths', () => {
  it('finds the slow shape, and only it', () => {
    expect(slowSpreadLiterals('a.ts', 'const a = { ...b, c: 1 }; const d = { ...e, ...f }')).toHaveLength(2)
    expect(slowSpreadLiterals('a.ts', 'const a = { c: 1, ...b }; const d = { ...e }; const g = { h: 1, ...(x ? {} : { y }), z: 2 }')).toHaveLength(0)
  })

  it('never begin with a spread followed by more members', () => {
    const slow: string[] = []
    for (const file of sourceFiles(src)) {
      const path = relative(src, file).split('\\').join('/')
      if (NOT_PER_TURN.has(path))
        continue
      for (const literal of slowSpreadLiterals(path, readFileSync(file, 'utf8')))
        slow.push(`${path}:${literal.line}: ${literal.text}`)
    }
    expect(slow).toEqual([])
  })
})
