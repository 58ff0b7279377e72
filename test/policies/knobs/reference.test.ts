import type { KnobMeta } from '../../../src/knobs/define'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { KNOBS } from '../../../src/knobs/behavior'

// docs/behavior.md and the slices' doc comments are checked against the knob
// metadata, so a default is written in code once and can only be repeated
// where a test compares it.

const root = fileURLToPath(new URL('../../..', import.meta.url))
const page = readFileSync(`${root}docs/behavior.md`, 'utf8')

/** How a default reads on the page: `10`, `true`, `'5m'`, `{ maxAttempts: 3, … }`, or the slice's label. */
function rendered(meta: KnobMeta): string {
  return meta.default === undefined ? meta.defaultLabel! : literal(meta.default)
}

function literal(value: unknown): string {
  if (typeof value === 'string')
    return `'${value}'`
  if (typeof value === 'object' && value !== null)
    return `{ ${Object.entries(value).map(([key, entry]) => `${key}: ${literal(entry)}`).join(', ')} }`
  return String(value)
}

/** Every knob and every field of an object knob, by dotted name. */
const ALL: [string, KnobMeta][] = Object.entries(KNOBS).flatMap(([name, meta]) => [
  [name, meta] as [string, KnobMeta],
  ...Object.entries(meta.fields?.knobs ?? {}).map(([field, fieldMeta]) => [`${name}.${field}`, fieldMeta] as [string, KnobMeta]),
])

const ROW = /^\| `([\w.]+)` \| ([^|]+) \|/gm
const rows = new Map(Array.from(page.matchAll(ROW), match => [match[1], match[2].trim()]))

describe('the README behavior overview', () => {
  // The README's behavior overview names every knob, so a new one is found from the front page too.
  const readme = readFileSync(`${root}README.md`, 'utf8')
  it.each(Object.keys(KNOBS))('names %s', (name) => {
    expect(readme).toContain(`\`${name}\``)
  })
})

describe('docs/behavior.md', () => {
  it('has a row for every knob and field, and no row for anything else', () => {
    expect([...rows.keys()].sort()).toEqual(ALL.map(([name]) => name).sort())
  })

  it.each(ALL)('%s: the default column says what the code does', (name, meta) => {
    expect(meta.default !== undefined || meta.defaultLabel !== undefined, `${name} needs a default or a defaultLabel`).toBe(true)
    const cell = rows.get(name)!.replaceAll('`', '')
    const expected = rendered(meta)
    // A short note may follow in parentheses: "0 (unlimited)".
    expect(cell === expected || cell.startsWith(`${expected} (`), `row says "${cell}", the slice "${expected}"`).toBe(true)
  })
})

/**
 * The knobs an interface's members are: a slice's (`*Knobs`), or the fields
 * of the one object knob whose fields include every documented member (its
 * config interface, such as `RetryConfig` for `retry`). Found, not listed.
 */
function ownerOf(iface: string, members: readonly string[]): Record<string, KnobMeta> | undefined {
  if (iface.endsWith('Knobs'))
    return KNOBS
  const owners = Object.values(KNOBS)
    .map(meta => meta.fields?.knobs)
    .filter((fields): fields is Readonly<Record<string, KnobMeta>> => fields !== undefined && members.length > 0 && members.every(member => member in fields))
  return owners.length === 1 ? owners[0] : undefined
}

const INTERFACE = /export interface (\w+) \{([\s\S]*?)\n\}/g
const MEMBER = /\/\*\*([\s\S]*?)\*\/\s*(\w+)\?:/g
const SAYS_DEFAULT = /Default:? (`[^`]+`|[^.;,(\n]+)/

describe('doc comments of the slices', () => {
  const files = readdirSync(`${root}src/knobs`).filter(file => file.endsWith('-knobs.ts'))
  const claims: [string, string, string][] = []
  for (const file of files) {
    for (const [, iface, body] of readFileSync(`${root}src/knobs/${file}`, 'utf8').matchAll(INTERFACE)) {
      const knobs = ownerOf(iface, Array.from(body.matchAll(MEMBER), match => match[2]))
      if (!knobs)
        continue
      for (const [, comment, member] of body.matchAll(MEMBER)) {
        const said = SAYS_DEFAULT.exec(comment.replace(/\n\s*\* ?/g, ' '))
        if (said)
          claims.push([`${iface}.${member}`, said[1].replaceAll('`', '').trim(), rendered(knobs[member])])
      }
    }
  }

  it('name defaults somewhere (the check below is not vacuous)', () => {
    expect(claims.length).toBeGreaterThan(20)
  })

  it.each(claims)('%s: "Default %s" agrees with the slice', (_member, said, expected) => {
    expect(said).toBe(expected)
  })
})
