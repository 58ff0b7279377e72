/**
 * The fake model servers the benchmarks talk to, run as their own process so
 * that the server's CPU is never charged to the loop being measured.
 *
 *   node --import tsx bench/fake-server.ts <anthropic|openai-chat> <turns> <callsPerTurn>
 *
 * `anthropic` serves the Messages API (`test/support/fake-anthropic.ts`),
 * `openai-chat` the Chat Completions API (`test/support/fake-openai.ts`). Both
 * play the same scripted conversation (`loop-script.ts`). Prints its base URL
 * as the first line on stdout, then serves until its stdin closes (the parent
 * exiting) or it receives SIGTERM.
 */

import type { BenchProvider } from './loop-script'
import { startBenchServer } from './loop-script'

const provider = providerArg(process.argv[2])
const turns = positiveInt(process.argv[3], 'turns')
const callsPerTurn = positiveInt(process.argv[4], 'callsPerTurn')

function providerArg(value: string | undefined): BenchProvider {
  if (value === 'anthropic' || value === 'openai-chat' || value === 'openai-responses')
    return value
  throw new Error(`fake-server: <provider> must be anthropic, openai-chat or openai-responses, got ${value}`)
}

function positiveInt(value: string | undefined, name: string): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`fake-server: <${name}> must be a positive integer, got ${value}`)
  return parsed
}

const server = await startBenchServer(provider, turns, callsPerTurn)

async function shutdown(): Promise<void> {
  await server.close()
  process.exit(0)
}

process.on('SIGTERM', () => void shutdown())
process.stdin.on('end', () => void shutdown())
process.stdin.on('close', () => void shutdown())
process.stdin.resume()
process.stdout.write(`${server.url}\n`)
