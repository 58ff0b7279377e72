import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_POLICIES } from '../../src/policies'

// BUILT_IN_POLICIES is the one list a built-in policy is added to. What used
// to be kept by hand beside it is checked against it here: one name per
// policy across its file, its export and its `name`, and the order the
// architecture page gives.

const root = fileURLToPath(new URL('../..', import.meta.url))
const names = BUILT_IN_POLICIES.map(policy => policy.name)

/** `'max-turns-warning'` → `'maxTurnsWarning'`. */
function camel(name: string): string {
  return name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())
}

/** The module a policy named `name` lives in: `src/policies/<name>.ts`, or a folder of that name. */
function moduleOf(name: string): string | undefined {
  return [`src/policies/${name}.ts`, `src/policies/${name}/index.ts`].find(path => existsSync(`${root}${path}`))
}

describe('the built-in policies', () => {
  it('have unique names', () => {
    expect(new Set(names).size).toBe(names.length)
  })

  it.each(names)('%s lives in the file of its name and is exported under its name', async (name) => {
    const path = moduleOf(name)
    expect(path, `no src/policies/${name}.ts or src/policies/${name}/index.ts`).toBeDefined()
    const module = await import(`${root}${path}`) as Record<string, unknown>
    expect(module[camel(name)], `${path} does not export ${camel(name)}`).toBe(BUILT_IN_POLICIES.find(policy => policy.name === name))
  })

  it('are listed in docs/architecture/policies.md in the order they run', () => {
    const page = readFileSync(`${root}docs/architecture/policies.md`, 'utf8').replace(/\s+/g, ' ')
    const listed = /the built-ins \(([^)]*)\)/.exec(page)
    expect(listed, 'the "Order" section names the built-ins in parentheses').not.toBeNull()
    expect(Array.from(listed![1].matchAll(/`([\w-]+)`/g), match => match[1])).toEqual(names)
  })
})
