import type { ExecutionContext } from '../../src/contexts/types'
import { describe, expect, it } from 'vitest'
import { grep } from '../../src/tools/grep'
import { harness, tempDirs, workspace } from './file-tools-support'

// After an agent run was aborted, grep went on reading every file: the walk checked the signal once per
// directory (a directory may hold thousands of files) and grep's own loops never did. It now stops within the
// batch of files being read (8 at a time) when the run is aborted. Without the fix every file is read.

const tempDir = tempDirs('grep-abort')
const FILES = 400

function countingReads(execution: ExecutionContext, onRead: (count: number) => void): ExecutionContext {
  let count = 0
  return new Proxy(execution, {
    get(target, property) {
      if (property === 'readFile') {
        return (path: string, options?: { maxBytes?: number }) => {
          onRead(++count)
          return target.readFile(path, options)
        }
      }
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

describe('grep and an aborted run', () => {
  it('stops reading files once the run is aborted, in a flat directory of many files', async () => {
    const ws = workspace(tempDir)
    for (let i = 0; i < FILES; i++)
      ws.put(`file-${String(i).padStart(4, '0')}.txt`, 'nothing here\n')
    const controller = new AbortController()
    let reads = 0
    const execution = countingReads(ws.execution, (count) => {
      reads = count
      if (count === 3)
        controller.abort()
    })
    const h = harness(execution as typeof ws.execution)
    h.ctx.signal = controller.signal
    await expect(h.call(grep, { pattern: 'needle' })).rejects.toThrow(/abort/i)
    expect(reads).toBeLessThanOrEqual(8)
  })

  it('does not start on a run aborted before it', async () => {
    const ws = workspace(tempDir)
    ws.put('a.txt', 'needle\n')
    let reads = 0
    const h = harness(countingReads(ws.execution, (count) => {
      reads = count
    }) as typeof ws.execution)
    h.ctx.signal = AbortSignal.abort()
    await expect(h.call(grep, { pattern: 'needle', path: 'a.txt' })).rejects.toThrow(/abort/i)
    expect(reads).toBe(0)
  })
})
