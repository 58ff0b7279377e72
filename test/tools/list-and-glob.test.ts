import { describe, expect, it } from 'vitest'
import { createGlobTool, glob } from '../../src/tools/glob'
import { globMatcher, globParts, pathMatcher } from '../../src/tools/glob-pattern'
import { createListFilesTool, listFiles } from '../../src/tools/list-files'
import { harness, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('list-glob')

function project() {
  const ws = workspace(tempDir)
  ws.put('package.json', '{}')
  ws.put('src/index.ts', '')
  ws.put('src/util/strings.ts', '')
  ws.put('src/util/strings.test.ts', '')
  ws.put('src/readme.md', '')
  ws.put('.github/workflows/ci.yml', '')
  ws.put('node_modules/dep/index.js', '')
  ws.put('.git/HEAD', '')
  return ws
}

describe('list_files', () => {
  it('lists recursively as a tree, directories with a slash, ignored ones shown but not entered', async () => {
    const { execution } = project()
    expect(await harness(execution).text(listFiles, {})).toBe([
      '.git/ (not listed)',
      '.github/',
      '.github/workflows/',
      '.github/workflows/ci.yml',
      'node_modules/ (not listed)',
      'package.json',
      'src/',
      'src/index.ts',
      'src/readme.md',
      'src/util/',
      'src/util/strings.test.ts',
      'src/util/strings.ts',
    ].join('\n'))
  })

  it('lists a subdirectory with paths usable as tool input', async () => {
    const { execution } = project()
    expect(await harness(execution).text(listFiles, { path: 'src/util' })).toBe('src/util/strings.test.ts\nsrc/util/strings.ts')
  })

  it('stops at the cap (breadth first) and says how to see more', async () => {
    const { execution } = project()
    const out = await harness(execution).text(createListFilesTool({ limit: 3 }), {})
    expect(out).toBe('.git/ (not listed)\n.github/\nnode_modules/ (not listed)\n\n[Listing stopped at 3 entries; list a subdirectory to see the rest.]')
  })

  it('refuses a file or a missing directory', async () => {
    const { execution } = project()
    const h = harness(execution)
    expect(await h.error(listFiles, { path: 'package.json' })).toMatch(/is a file, not a directory/)
    expect(await h.error(listFiles, { path: 'nope' })).toBe('Directory not found: nope')
  })
})

describe('glob', () => {
  it('** matches at any depth; * stays within a segment', async () => {
    const { execution } = project()
    const h = harness(execution)
    expect(await h.text(glob, { pattern: '**/*.ts' })).toBe('src/index.ts\nsrc/util/strings.test.ts\nsrc/util/strings.ts')
    expect(await h.text(glob, { pattern: 'src/*.ts' })).toBe('src/index.ts')
    expect(await h.text(glob, { pattern: 'src/**/*.{md,json}' })).toBe('src/readme.md')
    expect(await h.text(glob, { pattern: '*.json' })).toBe('package.json')
  })

  it('is relative to path, and skips ignored directories unless the pattern names them', async () => {
    const { execution } = project()
    const h = harness(execution)
    expect(await h.text(glob, { pattern: '*.ts', path: 'src/util' })).toBe('src/util/strings.test.ts\nsrc/util/strings.ts')
    expect(await h.text(glob, { pattern: '**/*.js' })).toBe('No files match **/*.js in the working directory.')
    expect(await h.text(glob, { pattern: 'node_modules/**/*.js' })).toBe('node_modules/dep/index.js')
    expect(await h.text(glob, { pattern: '.github/**/*.yml' })).toBe('.github/workflows/ci.yml')
  })

  it('caps the results', async () => {
    const { execution } = project()
    const out = await harness(execution).text(createGlobTool({ limit: 1 }), { pattern: '**/*.ts' })
    expect(out).toMatch(/^src\/index\.ts\n\n\[More than 1 files match/)
  })
})

describe('glob patterns (pure)', () => {
  it('translates the glob syntax', () => {
    expect(globMatcher('**/*.ts')('a.ts')).toBe(true)
    expect(globMatcher('**/*.ts')('x/y/a.ts')).toBe(true)
    expect(globMatcher('*.ts')('x/a.ts')).toBe(false)
    expect(globMatcher('a?c')('abc')).toBe(true)
    expect(globMatcher('[!a]b')('ab')).toBe(false)
    expect(globMatcher('[!a]b')('cb')).toBe(true)
    expect(globMatcher('{src,test}/**')('test/x/y.ts')).toBe(true)
    expect(globMatcher('file.(1)+')('file.(1)+')).toBe(true)
    expect(() => globMatcher('{a,b')).toThrow(/never closed/)
  })

  it('splits the literal prefix a walk can start from', () => {
    expect(globParts('src/util/*.ts')).toMatchObject({ base: 'src/util', recursive: false, depth: 1 })
    expect(globParts('**/*.ts')).toMatchObject({ base: '', recursive: true })
    expect(globParts('/abs/dir/**')).toMatchObject({ base: '/abs/dir', recursive: true })
  })

  it('a pattern without a slash matches the file name', () => {
    expect(pathMatcher('*.ts')('deep/dir/a.ts')).toBe(true)
    expect(pathMatcher('src/*.ts')('deep/src/a.ts')).toBe(false)
  })
})
