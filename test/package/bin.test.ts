/**
 * The `zidane` bin as npm installs it: package.json names a built file that
 * starts with a shebang, is executable, and runs on its own (no TypeScript
 * loader) against a fake model server.
 */

import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../src/testing'
import { cleanEnv, freshDir } from '../cli/process'
import { ensureBuilt, root } from '../docs/consumer-project'

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>, files: string[] }
const bin = join(root, manifest.bin.zidane)

function runBuilt(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null, stdout: string }> {
  return new Promise((resolve, reject) => {
    // Executed as a file, the way a shell runs it from node_modules/.bin: the shebang picks Node.
    const child = spawn(bin, args, { cwd, env: { ...env, PATH: `${join(process.execPath, '..')}:${env.PATH ?? ''}` }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout }))
  })
}

describe('the zidane bin', () => {
  beforeAll(() => {
    ensureBuilt()
  }, 900_000)

  it('is a shipped, executable file that starts with a shebang', () => {
    expect(manifest.bin).toEqual({ zidane: './dist/bin/zidane.js' })
    expect(manifest.files).toContain('dist')
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true)
    expect(statSync(bin).mode & 0o111).not.toBe(0)
  })

  it('runs a prompt against a model server and prints its version', async () => {
    const server = await startFakeModelServer({ script: [{ text: 'built ok' }] })
    try {
      const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ZIDANE_HOME: freshDir('home') })
      const run = await runBuilt(['--base-url', server.url, 'hi'], env, freshDir('cwd'))
      expect(run).toEqual({ code: 0, stdout: 'built ok\n' })
      const version = await runBuilt(['--version'], env, freshDir('cwd'))
      expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`)
    }
    finally {
      await server.close()
    }
  }, 60_000)
})
