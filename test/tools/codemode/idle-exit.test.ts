import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// A program that ran a script exits by itself: the idle sandbox worker is not
// referenced (decisions, 2026-12-02-idle-agent-exit and 2026-12-02-codemode).

const CHILD = fileURLToPath(new URL('../../support/codemode-exit-child.ts', import.meta.url))

describe('codemode and the end of a program', () => {
  it('an idle sandbox worker does not keep the process alive', async () => {
    const { code, stdout, timedOut } = await new Promise<{ code: number | null, stdout: string, timedOut: boolean }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      let killed = false
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
      })
      const timer = setTimeout(() => {
        killed = true
        child.kill('SIGKILL')
      }, 20_000)
      child.on('error', reject)
      child.on('close', (exitCode) => {
        clearTimeout(timer)
        resolve({ code: exitCode, stdout: out, timedOut: killed })
      })
    })
    expect(timedOut).toBe(false)
    expect(code).toBe(0)
    expect(stdout).toContain('in the sandbox\\nReturned: 42')
  }, 30_000)
})
