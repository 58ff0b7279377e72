/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import { describe, expect, it } from 'vitest'
import { expandEnvString, expandServerConfig } from '../../src/mcp/expand-env'
import { filterTools, validateServerConfig } from '../../src/mcp/filters'
import { canonicalMcpToolName, MAX_WIRE_NAME_LENGTH, sanitizeMcpName, wireMcpToolName } from '../../src/mcp/naming'
import { mapCallResult, toToolOutput } from '../../src/mcp/tools'

describe('expandEnvString', () => {
  const env = { HOME_DIR: '/home/z', EMPTY: '' }
  it('expands the three placeholder forms', () => {
    expect(expandEnvString('${HOME_DIR}/x', env)).toBe('/home/z/x')
    expect(expandEnvString('${env:HOME_DIR}', env)).toBe('/home/z')
    expect(expandEnvString('${MISSING:-fallback}', env)).toBe('fallback')
    expect(expandEnvString('${EMPTY:-fallback}', env)).toBe('fallback')
    expect(expandEnvString('${HOME_DIR:-fallback}', env)).toBe('/home/z')
    expect(expandEnvString('${MISSING:-}', env)).toBe('')
  })
  it('expands an unset variable without default to nothing and leaves other text alone', () => {
    expect(expandEnvString('a${MISSING}b $HOME_DIR {x}', env)).toBe('ab $HOME_DIR {x}')
  })
  it('expands transport fields but not a preExpanded config', () => {
    const config = {
      name: 's',
      transport: 'stdio' as const,
      command: '${HOME_DIR}/bin',
      args: ['--root=${HOME_DIR}'],
      env: { TOKEN: '${env:HOME_DIR}' },
      cwd: '${HOME_DIR}',
      url: 'http://h/${HOME_DIR}',
      headers: { authorization: 'Bearer ${MISSING:-anon}' },
    }
    expect(expandServerConfig(config, env)).toMatchObject({
      command: '/home/z/bin',
      args: ['--root=/home/z'],
      env: { TOKEN: '/home/z' },
      cwd: '/home/z',
      url: 'http://h//home/z',
      headers: { authorization: 'Bearer anon' },
    })
    const raw = { ...config, preExpanded: true }
    expect(expandServerConfig(raw, env)).toBe(raw)
  })
})

describe('naming', () => {
  it('builds canonical and wire names', () => {
    expect(canonicalMcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue')
    expect(wireMcpToolName('github', 'create_issue')).toBe('mcp_github_create_issue')
    expect(wireMcpToolName('github', 'create_issue', '__')).toBe('mcp__github__create_issue')
  })
  it('sanitizes characters providers reject', () => {
    expect(sanitizeMcpName('my server.v2')).toBe('my_server_v2')
    expect(sanitizeMcpName('')).toBe('_')
    expect(canonicalMcpToolName('a b', 'do.thing')).toBe('mcp__a_b__do_thing')
  })
  it('keeps long wire names within the limit and distinct', () => {
    const a = wireMcpToolName('server', `${'x'.repeat(80)}a`)
    const b = wireMcpToolName('server', `${'x'.repeat(80)}b`)
    expect(a.length).toBe(MAX_WIRE_NAME_LENGTH)
    expect(a).not.toBe(b)
  })
})

describe('filters', () => {
  const tools = [{ name: 'a', description: 'alpha' }, { name: 'b', description: 'beta' }, { name: 'c', description: 'gamma' }]
  const base = { name: 's', transport: 'stdio' as const, command: 'x' }
  it('applies the allow list, then the predicate', () => {
    const kept = filterTools({ ...base, enabledTools: ['a', 'b'], toolFilter: t => t.description !== 'beta' }, tools)
    expect(kept.map(t => t.name)).toEqual(['a'])
  })
  it('applies the deny list', () => {
    expect(filterTools({ ...base, disabledTools: ['a'] }, tools).map(t => t.name)).toEqual(['b', 'c'])
  })
  it('rejects both lists, lazyConnect without cachedTools, and lazyConnect with OAuth', () => {
    expect(() => validateServerConfig({ ...base, enabledTools: ['a'], disabledTools: ['b'] })).toThrow(/mutually exclusive/)
    expect(() => validateServerConfig({ ...base, lazyConnect: true })).toThrow(/requires cachedTools/)
    expect(() => validateServerConfig({ name: 'h', transport: 'streamable-http', url: 'http://127.0.0.1:1', lazyConnect: true, cachedTools: [], auth: 'oauth' })).toThrow(/OAuth/)
    expect(() => validateServerConfig({ name: 'h', transport: 'streamable-http' })).toThrow(/needs a url/)
    expect(() => validateServerConfig({ name: 's', transport: 'stdio' })).toThrow(/needs a command/)
    // Both are supported now (see transports.test.ts); a config asking for them is valid.
    expect(() => validateServerConfig({ name: 'h', transport: 'sse', url: 'http://127.0.0.1:1', headers: { a: 'b' }, pinHeaderOrigin: true })).not.toThrow()
    expect(() => validateServerConfig({ ...base, scope: 'context' })).not.toThrow()
  })
})

describe('mapCallResult', () => {
  it('maps every content kind', () => {
    const blocks = mapCallResult({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: 'AAA', mimeType: 'image/png' },
        { type: 'audio', data: 'BBB', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///t', text: 'doc text' } },
        { type: 'resource', resource: { uri: 'file:///b', blob: 'CCC', mimeType: 'application/pdf' } },
        { type: 'resource', resource: { uri: 'file:///i', blob: 'DDD', mimeType: 'image/jpeg' } },
        { type: 'resource_link', uri: 'file:///l', name: 'l' },
      ],
    })
    expect(blocks).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', data: 'AAA', mediaType: 'image/png' },
      { type: 'audio', data: 'BBB', mediaType: 'audio/wav' },
      { type: 'text', text: 'doc text' },
      { type: 'document', data: 'CCC', encoding: 'base64', mediaType: 'application/pdf', name: 'file:///b' },
      { type: 'image', data: 'DDD', mediaType: 'image/jpeg', name: 'file:///i' },
      { type: 'text', text: 'Resource link: l (file:///l)' },
    ])
  })
  it('keeps structuredContent only when there is no text', () => {
    expect(mapCallResult({ content: [], structuredContent: { x: 1 } })).toEqual([{ type: 'text', text: '{"x":1}' }])
    expect(mapCallResult({ content: [{ type: 'text', text: '1' }], structuredContent: { x: 1 } })).toEqual([{ type: 'text', text: '1' }])
  })
  it('returns plain text when all blocks are text', () => {
    expect(toToolOutput([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])).toBe('a\nb')
    expect(toToolOutput([])).toBe('(no content)')
  })
})
