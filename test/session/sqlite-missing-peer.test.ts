import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('sqlite-peer')

describe('zidane/session/sqlite without better-sqlite3 installed', () => {
  it('imports fine, and createSqliteStore throws an error naming the package and the install command', async () => {
    // The entry bundled into a directory with no node_modules above it: `better-sqlite3`
    // is really unresolvable there, as in a project that never installed it.
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('../../src/session/sqlite.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      external: ['better-sqlite3'],
      logLevel: 'silent',
    })
    writeFileSync(join(dir, 'sqlite.mjs'), bundle.outputFiles[0].text)
    writeFileSync(join(dir, 'probe.mjs'), `
      const { createSqliteStore } = await import('./sqlite.mjs')
      try {
        createSqliteStore({ path: ':memory:' })
        console.log(JSON.stringify({ opened: true }))
      }
      catch (error) {
        const { name, message, packageName, feature, installCommand } = error
        console.log(JSON.stringify({ name, message, packageName, feature, installCommand, cause: error.cause?.code }))
      }
    `)
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'probe.mjs')], { cwd: dir, env: { ...process.env, NODE_PATH: '' } })
    const outcome = JSON.parse(stdout)

    expect(outcome).toEqual({
      name: 'MissingPeerDependencyError',
      message: expect.stringContaining('Install it with: npm install better-sqlite3'),
      packageName: 'better-sqlite3',
      feature: 'zidane/session/sqlite',
      installCommand: 'npm install better-sqlite3',
      cause: 'MODULE_NOT_FOUND',
    })
    expect(outcome.message).toContain('zidane/session/sqlite needs the optional peer dependency "better-sqlite3"')
  })
})
