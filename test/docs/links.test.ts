import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { docPages } from '../../scripts/doc-samples'

// The README and docs are read from the installed package too, so every
// relative link must lead to a file that exists and that `npm pack` ships.
const root = fileURLToPath(new URL('../..', import.meta.url))

const LINK = /\]\(([^)\s]+)\)/g
const FENCE = /```[\s\S]*?```/g
const SCHEME = /^[a-z][\w+.-]*:/i
/** Written by `npm run docs:api` before publishing, so absent from a clone. */
const GENERATED = 'docs/reference'

/** Relative link targets of one page, outside code fences, anchors stripped, as repository paths. */
function relativeLinks(page: string): { target: string, path: string }[] {
  const text = readFileSync(join(root, page), 'utf8').replace(FENCE, '')
  const links: { target: string, path: string }[] = []
  for (const match of text.matchAll(LINK)) {
    const target = match[1]
    if (SCHEME.test(target) || target.startsWith('#'))
      continue
    const file = target.split('#')[0]
    links.push({ target, path: normalize(join(dirname(page), file)).replaceAll('\\', '/') })
  }
  return links
}

/** The paths `npm pack` would put in the tarball (without running the pack scripts). */
function packedPaths(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  const [report] = JSON.parse(out) as { files: { path: string }[] }[]
  return new Set(report.files.map(file => file.path))
}

describe('links in README.md and docs/', () => {
  const pages = docPages(root)
  const links = pages.flatMap(page => relativeLinks(page).map(link => ({ page, ...link })))
    .filter(link => link.path !== GENERATED && !link.path.startsWith(`${GENERATED}/`))
  const packed = packedPaths()
  /** A file is shipped when the tarball has it; a folder when the tarball has something in it. */
  const shipped = (path: string) => packed.has(path) || [...packed].some(file => file.startsWith(`${path.replace(/\/$/, '')}/`))

  it('finds the links', () => {
    expect(links.length).toBeGreaterThan(50)
  })

  it('every relative link leads to a file or folder that exists', () => {
    expect(links.filter(link => !existsSync(join(root, link.path))).map(link => `${link.page}: ${link.target}`)).toEqual([])
  })

  it('every relative link leads to something the package ships', () => {
    const missing = links.filter(link => existsSync(join(root, link.path)) && !shipped(link.path))
    expect(missing.map(link => `${link.page}: ${link.target}`)).toEqual([])
  })

  it('ships the runnable examples', () => {
    expect(packed.has('examples/quickstart.ts')).toBe(true)
    expect(packed.has('examples/README.md')).toBe(true)
  })
})
