import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** Bundle a snippet the way a host's bundler would and return the output. */
async function bundle(contents: string): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    treeShaking: true,
    logLevel: 'silent',
  })
  return result.outputFiles[0].text
}

describe('entry points stay light', () => {
  it('import type from the types entry adds no code', async () => {
    const out = await bundle(`import type { AgentStats, SessionTurn } from './src/types'\nexport const x: AgentStats | SessionTurn | undefined = undefined`)
    expect(out).not.toMatch(/hookable|anthropic|zod/i)
    expect(out.length).toBeLessThan(200)
  })

  it('the helpers of the types entry pull in no SDK or runtime dependency', async () => {
    const out = await bundle(`export { toolResultToText, flattenTurns, statsByModel, DEFAULT_AGENT_CLOCK } from './src/types'`)
    expect(out).not.toMatch(/hookable|@anthropic-ai|from "zod"/)
    expect(out).toContain('function toolResultToText')
  })

  it('the root entry does not load a provider SDK', async () => {
    const out = await bundle(`export { createAgent } from './src/index'`)
    expect(out).not.toContain('@anthropic-ai/sdk')
    expect(out).toContain('createAgent')
  })
})
