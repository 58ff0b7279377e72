import type { DockerContext } from '../../src/contexts/docker'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerContext, dockerAvailable } from '../../src/contexts/docker'

/**
 * Against a real engine. Skipped wherever `docker info` fails (no engine, no
 * permission), which includes the sandbox this SDK is developed in; the
 * command layer and the runtime are covered engine-free by the other docker tests.
 * Override the image with ZIDANE_DOCKER_TEST_IMAGE (it must have sh and coreutils/busybox).
 */
const image = process.env.ZIDANE_DOCKER_TEST_IMAGE ?? 'alpine:3.20'
let available = false
let context: DockerContext | undefined

beforeAll(async () => {
  available = await dockerAvailable()
  if (available)
    context = createDockerContext({ image, killGraceMs: 1_000 })
}, 30_000)

afterAll(async () => {
  await context?.destroy()
}, 60_000)

describe('docker context against a live engine', () => {
  it('runs commands and files in the container', { timeout: 180_000 }, async ({ skip }) => {
    if (!available || !context)
      return skip()
    await context.spawn()
    const result = await context.exec('echo "$(pwd)"; uname -s')
    expect(result).toMatchObject({ output: '/workspace\nLinux\n', exitCode: 0 })
    await context.writeFile('notes/a.txt', 'in the box')
    expect(new TextDecoder().decode(await context.readFile('notes/a.txt'))).toBe('in the box')
    expect(await context.readDir('notes')).toEqual([{ name: 'a.txt', type: 'file' }])
  })

  it('a timeout kills the command inside the container', { timeout: 60_000 }, async ({ skip }) => {
    if (!available || !context)
      return skip()
    const result = await context.exec('sleep 30 & sleep 30', { timeoutMs: 1_000 })
    expect(result.timedOut).toBe(true)
    const left = await context.exec('ps -o comm= | grep -c "^sleep$" || true')
    expect(left.output.trim()).toBe('0')
  })
})
