import type { ToolCatalogEntry } from '../../src/tools'
import { describe, expect, it } from 'vitest'
import { createCallTool, createToolSearchTool, renderCatalogSection, searchCatalog, unwrapCallTool } from '../../src/tools'

function entry(name: string, description: string, server = 'srv'): ToolCatalogEntry {
  return {
    name: `mcp__${server}__${name}`,
    wireName: `mcp_${server}_${name}`,
    description,
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    server,
  }
}

const catalog = [
  entry('list_issues', 'List issues in a project'),
  entry('create_issue', 'Create an issue'),
  entry('query', 'Run a SQL query against the database', 'db'),
  entry('issue', 'Fetch one issue by id'),
]

describe('searchCatalog', () => {
  it('ranks name words over name substrings over server over description, ties in catalog order', () => {
    expect(searchCatalog(catalog, 'issue', 10).map(e => e.wireName)).toEqual(['mcp_srv_create_issue', 'mcp_srv_issue', 'mcp_srv_list_issues'])
    expect(searchCatalog(catalog, 'database', 10).map(e => e.wireName)).toEqual(['mcp_db_query'])
    expect(searchCatalog(catalog, 'db', 10).map(e => e.wireName)).toEqual(['mcp_db_query'])
    expect(searchCatalog(catalog, 'mcp_srv_issue', 10)[0].wireName).toBe('mcp_srv_issue')
    expect(searchCatalog(catalog, 'nothing matches', 10)).toEqual([])
    expect(searchCatalog(catalog, '  ', 10)).toEqual([])
  })

  it('select: picks exact wire or canonical names in the order asked, and the limit applies', () => {
    expect(searchCatalog(catalog, 'select:mcp_db_query, mcp__srv__issue,unknown,mcp_db_query', 10).map(e => e.wireName)).toEqual(['mcp_db_query', 'mcp_srv_issue'])
    expect(searchCatalog(catalog, 'issue', 2)).toHaveLength(2)
  })
})

describe('createToolSearchTool', () => {
  it('returns schemas, records what it disclosed in order, and honors its default limit', async () => {
    const unlocked = new Set<string>()
    const search = createToolSearchTool({ catalog, unlocked, limit: 1 })
    const out = await search.execute({ query: 'issue' }, {} as never) as string
    expect(out).toMatch(/^Loaded 1 tool\. Call it with call_tool/)
    expect(out).toContain('## mcp_srv_create_issue')
    expect(out).toContain('Input schema: {"type":"object","properties":{"id":{"type":"string"}}}')
    expect([...unlocked]).toEqual(['mcp__srv__create_issue'])
    await search.execute({ query: 'select:mcp_db_query', limit: 5 }, {} as never)
    expect([...unlocked]).toEqual(['mcp__srv__create_issue', 'mcp__db__query'])
    expect(await search.execute({ query: 'zzz' }, {} as never)).toMatch(/^No searchable tool matched/)
  })

  it('explains unlock mode instead of the envelope', async () => {
    const search = createToolSearchTool({ catalog, unlocked: new Set(), mode: 'unlock' })
    const out = await search.execute({ query: 'select:mcp_db_query' }, {} as never) as string
    expect(out).toContain('callable directly from your next turn')
    expect(out).not.toContain('call_tool')
  })
})

describe('call_tool', () => {
  it('unwraps name and arguments, accepting arguments sent as a JSON string', () => {
    expect(unwrapCallTool({ name: ' mcp_db_query ', arguments: { id: 'x' } })).toEqual({ name: 'mcp_db_query', input: { id: 'x' } })
    expect(unwrapCallTool({ name: 'a', arguments: '{"id":1}' })).toEqual({ name: 'a', input: { id: 1 } })
    expect(unwrapCallTool({ name: 'a' })).toEqual({ name: 'a', input: {} })
    expect(unwrapCallTool({ name: 'a', arguments: [1] })).toEqual({ error: '"arguments" must be a JSON object' })
    expect(unwrapCallTool({ name: 'a', arguments: '{oops' })).toEqual({ error: '"arguments" must be a JSON object' })
    expect(unwrapCallTool({})).toHaveProperty('error')
  })

  it('refuses to run outside an agent loop', async () => {
    expect(() => createCallTool().execute({ name: 'x' }, {} as never)).toThrow(/only works inside an agent run/)
  })
})

describe('renderCatalogSection', () => {
  it('groups by server in catalog order and points at the search and envelope tools', () => {
    const text = renderCatalogSection(catalog, { detail: 'full', searchTool: 'tool_search', callTool: 'call_tool' })
    expect(text).toBe([
      '# Searchable Tools',
      '',
      'The tools below are available, but their input schemas are not loaded. Call `tool_search` with keywords (or `select:<name>,<name>`) to load the schemas you need, then run a loaded tool with `call_tool` ({ "name": "<tool name>", "arguments": { … } }).',
      '',
      '## srv',
      '- mcp_srv_list_issues: List issues in a project',
      '- mcp_srv_create_issue: Create an issue',
      '- mcp_srv_issue: Fetch one issue by id',
      '',
      '## db',
      '- mcp_db_query: Run a SQL query against the database',
    ].join('\n'))
  })

  it('lists names only, and drops the pointer when there is no search tool', () => {
    const text = renderCatalogSection([entry('a', 'A\n\n  multi   line')], { detail: 'names' })
    expect(text).toBe('# Searchable Tools\n\n## srv\n- mcp_srv_a')
    expect(renderCatalogSection([entry('a', 'A\n\n  multi   line')], { detail: 'full' })).toContain('- mcp_srv_a: A multi line')
  })
})
