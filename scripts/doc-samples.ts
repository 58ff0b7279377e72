// Finds the TypeScript samples in README.md and docs/**/*.md, and writes them
// out as one module file each, so one compiler run can check them all
// against the built package (see CONTRIBUTING.md, "Samples in the docs").
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** One ```ts fence from a Markdown page. */
export interface DocSample {
  /** Page path relative to the repository root, with `/` separators. */
  page: string
  /** 1-based line of the opening fence. */
  line: number
  code: string
  /** File name the sample is written to: unique, and names its page and line. */
  fileName: string
}

/** Opening fences of TypeScript samples; the rest of the info string may say `fragment`. */
const OPENING = /^(\s*)```(?:ts|typescript)(?:[ \t](.*))?$/
const FRAGMENT_WORD = /\bfragment\b/
const FRAGMENT_COMMENT = /^<!--\s*fragment\b.*-->$/
const PAGE_SUFFIX = /\.md$/
const NOT_A_NAME_CHARACTER = /[^\w-]+/g
const DIAGNOSTIC = /^(.+?)\((\d+),\d+\): error (.*)$/
const INDENTED = /^\s/
const ERROR_CODE = /error TS\d+/

/** README.md and every page under docs/, in a stable order. */
export function docPages(root: string): string[] {
  const pages = ['README.md']
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory())
        walk(path)
      else if (entry.name.endsWith('.md'))
        pages.push(path)
    }
  }
  walk('docs')
  return pages
}

/**
 * The complete samples of one page. A fence is skipped when it is marked as a
 * fragment: ```ts fragment, or a `<!-- fragment -->` line just before it.
 */
export function samplesOf(page: string, text: string): DocSample[] {
  const lines = text.split('\n')
  const samples: DocSample[] = []
  let previous = ''
  for (let index = 0; index < lines.length; index++) {
    const match = OPENING.exec(lines[index])
    if (!match) {
      if (lines[index].trim() !== '')
        previous = lines[index].trim()
      continue
    }
    const indent = match[1]
    const fragment = FRAGMENT_WORD.test(match[2] ?? '') || FRAGMENT_COMMENT.test(previous)
    const start = index
    const body: string[] = []
    for (index++; index < lines.length && lines[index].trim() !== '```'; index++)
      body.push(lines[index].startsWith(indent) ? lines[index].slice(indent.length) : lines[index])
    previous = ''
    if (fragment)
      continue
    const fileName = `${page.replace(PAGE_SUFFIX, '').replace(NOT_A_NAME_CHARACTER, '_')}_L${start + 1}.ts`
    samples.push({ page, line: start + 1, code: `${body.join('\n')}\n`, fileName })
  }
  return samples
}

/** Every complete sample of the README and the docs. */
export function collectSamples(root: string): DocSample[] {
  return docPages(root).flatMap(page => samplesOf(page, readFileSync(join(root, page), 'utf8')))
}

/** Write each sample to `dir` as its own module file; returns the samples by file name. */
export function writeSamples(samples: readonly DocSample[], dir: string): Map<string, DocSample> {
  mkdirSync(dir, { recursive: true })
  const byFile = new Map<string, DocSample>()
  for (const sample of samples) {
    writeFileSync(join(dir, sample.fileName), sample.code)
    byFile.set(sample.fileName, sample)
  }
  return byFile
}

/** One compiler diagnostic, mapped back to the page line it comes from. */
export interface SampleDiagnostic {
  fileName: string
  /** `page:line` in the Markdown source. */
  where: string
  message: string
}

/**
 * Parse `tsc --pretty false` output into diagnostics per sample file.
 * Diagnostics outside the samples (a broken `.d.ts`) are kept with an empty file name.
 */
export function parseDiagnostics(output: string, byFile: ReadonlyMap<string, DocSample>, samplesDir: string, cwd: string): SampleDiagnostic[] {
  const diagnostics: SampleDiagnostic[] = []
  const prefix = relative(cwd, samplesDir).replaceAll('\\', '/')
  for (const line of output.split('\n')) {
    const match = DIAGNOSTIC.exec(line)
    if (!match) {
      if (diagnostics.length > 0 && INDENTED.test(line))
        diagnostics.at(-1)!.message += `\n${line}`
      else if (ERROR_CODE.test(line))
        diagnostics.push({ fileName: '', where: '(program)', message: line })
      continue
    }
    const file = match[1].replaceAll('\\', '/')
    const name = prefix && file.startsWith(`${prefix}/`) ? file.slice(prefix.length + 1) : file
    const sample = byFile.get(name)
    diagnostics.push(sample
      ? { fileName: name, where: `${sample.page}:${sample.line + Number(match[2])}`, message: match[3] }
      : { fileName: '', where: `${file}:${match[2]}`, message: match[3] })
  }
  return diagnostics
}
