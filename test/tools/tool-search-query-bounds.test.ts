import type { ToolCatalogEntry } from '../../src/tools'
import { describe, expect, it } from 'vitest'
import { createToolSearchTool, searchCatalog } from '../../src/tools'

// A query is scored on the agent's thread, word by word against every tool's description. A script's
// searchTools() (or a model's tool_search) may pass a megabyte: it held the thread for half a minute.

/** 40 tools with long descriptions, as MCP servers ship them. */
const catalog: ToolCatalogEntry[] = Array.from({ length: 40 }, (_, i) => ({
  name: `tool_${i}`,
  wireName: `tool_${i}`,
  description: `Tool number ${i}. ${'Reads records from the inventory service and returns them as JSON objects. '.repeat(20)}`,
  inputSchema: { type: 'object' },
}))

describe('searchCatalog bounds a query before scoring it', () => {
  it('a one-megabyte query answers at once', () => {
    expect(searchCatalog(catalog, 'zq '.repeat(333_000), 10)).toEqual([])
  })

  it('scores the first 32 distinct words only (repeats count once)', () => {
    const filler = Array.from({ length: 31 }, (_, i) => `w${i}`).join(' ')
    expect(searchCatalog(catalog, `${filler} inventory`, 1).map(entry => entry.name)).toEqual(['tool_0'])
    expect(searchCatalog(catalog, `${filler} w0 w1 inventory`, 1).map(entry => entry.name)).toEqual(['tool_0'])
    expect(searchCatalog(catalog, `${filler} extra inventory`, 1)).toEqual([])
  })

  it('reads the first 2,000 characters', () => {
    expect(searchCatalog(catalog, `${' '.repeat(1995)}inventory`, 1).map(entry => entry.name)).toEqual(['tool_0'])
    expect(searchCatalog(catalog, `${' '.repeat(2000)}inventory`, 1)).toEqual([])
  })

  it('holds for the model\'s tool_search too', async () => {
    const search = createToolSearchTool({ catalog, unlocked: new Set() })
    expect(await search.execute({ query: 'ab '.repeat(333_000) }, {} as never)).toMatch(/^No searchable tool matched/)
  })
})
