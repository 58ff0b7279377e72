/**
 * The provider folders' import rule: shared rules live in `src/providers/shared/`,
 * which imports no vendor folder, and a wire builder takes what it shares from
 * there, never from another vendor's folder. Read from the source, so a new
 * import across the line fails here rather than in review.
 */

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const PROVIDERS = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/providers')
const VENDORS = ['anthropic', 'openai-chat', 'openai', 'openai-compat', 'openrouter', 'cerebras'] as const
const IMPORT = /^(?:import|export)[^'"]*from '([^']+)'/gm
/** An import from `openai` or `@anthropic-ai/sdk`: the names it takes and the module. */
const VENDOR_IMPORT = /^(?:import|export)([^'"]*)from '((?:openai|@anthropic-ai\/sdk)(?:\/[^']*)?)'/gm
/** A name with a leading underscore among imported names (`_x`, `{ a, _x }`, `_x as y`). */
const PRIVATE_NAME = /(?:^|[\s{,])_\w/

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [])
}

/** The provider folder (first path segment under `src/providers/`) each relative import of `folder` lands in. */
function importedFolders(folder: string): { file: string, target: string }[] {
  return filesUnder(join(PROVIDERS, folder)).flatMap(file => Array.from(readFileSync(file, 'utf8').matchAll(IMPORT), match => match[1])
    .filter(specifier => specifier.startsWith('.'))
    .map(specifier => relative(PROVIDERS, resolve(dirname(file), specifier)).split('/')[0])
    .map(target => ({ file: relative(PROVIDERS, file), target })))
}

describe('provider import rules', () => {
  it('shared/ imports no vendor folder', () => {
    const crossing = importedFolders('shared').filter(({ target }) => (VENDORS as readonly string[]).includes(target))
    expect(crossing).toEqual([])
  })

  it.each([
    ['anthropic', ['anthropic']],
    ['openai/responses', ['openai']],
  ] as const)('the %s builder imports no other vendor folder', (folder, own) => {
    const crossing = importedFolders(folder).filter(({ target }) => (VENDORS as readonly string[]).includes(target) && !(own as readonly string[]).includes(target))
    expect(crossing).toEqual([])
  })

  it('takes only public names from the vendor clients', () => {
    // Underscore-named exports and `internal/` modules are the clients' own business: any release in range may rename them.
    const vendorImports = filesUnder(PROVIDERS).flatMap(file => Array.from(readFileSync(file, 'utf8').matchAll(VENDOR_IMPORT), ([, names, specifier]) => ({ file: relative(PROVIDERS, file), names, specifier })))
    expect(vendorImports.length).toBeGreaterThan(0)
    expect(vendorImports.filter(({ names, specifier }) => PRIVATE_NAME.test(names) || specifier.includes('/internal'))).toEqual([])
  })

  it('finds the imports it checks', () => {
    // Guards the reader itself: the Responses builder does import shared rules.
    expect(importedFolders('openai/responses').map(({ target }) => target)).toContain('shared')
  })
})
