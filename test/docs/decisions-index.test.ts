import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// docs/decisions/README.md indexes every decision record with its status. A
// record added without a row, a row for a record that is gone, or a date that
// is not the file's fails here.

const dir = fileURLToPath(new URL('../../docs/decisions/', import.meta.url))
const records = readdirSync(dir).filter(name => name.endsWith('.md') && name !== 'README.md').sort()
const index = readFileSync(`${dir}README.md`, 'utf8')

/** `| date | [title](file.md) | status |` rows of the index table. */
const ROW = /^\| (\d{4}-\d{2}-\d{2}) \| \[([^\]]+)\]\(([\w.-]+\.md)\) \| (.+) \|$/gm
const rows = Array.from(index.matchAll(ROW), ([, date, title, file, status]) => ({ date, title, file, status }))
const STATUS = /^(?:accepted|(?:amended|superseded) by \[[\w-]+\]\(([\w.-]+\.md)\)(?: \([^)]+\))?)$/

describe('the index of decision records', () => {
  it('has one row per record, in file order', () => {
    expect(records.length).toBeGreaterThan(30)
    expect(rows.map(row => row.file)).toEqual(records)
  })

  it.each(rows.map(row => [row.file, row] as const))('%s: the date is the file\'s and the status is a known one', (file, row) => {
    expect(file.startsWith(`${row.date}-`)).toBe(true)
    expect(row.title.length).toBeGreaterThan(5)
    const status = STATUS.exec(row.status)
    expect(status, `status "${row.status}"`).not.toBeNull()
    // An amending or superseding record is itself a record of the index.
    if (status![1] !== undefined)
      expect(records).toContain(status![1])
  })
})
