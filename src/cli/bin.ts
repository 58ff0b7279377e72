#!/usr/bin/env node
// The `zidane` command. This file stays two folders below the package root in
// the source (src/cli/) and in the build (dist/bin/), so it finds package.json
// the same way in both.
import { readFileSync } from 'node:fs'
import { runCommand } from './command'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

// A reader that went away (`zidane … | head -1`) is not an error to report: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE')
    throw error
  process.exit(0)
})
// Standard error only carries the activity (`zidane … 2>&1 | head -1` closes it too): once nobody reads it,
// the rest is dropped and the run goes on, so the answer still reaches standard output.
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED')
    throw error
})

const code = await runCommand({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signals: process,
  exit: code => process.exit(code),
  version,
})
// Leave once the output is flushed: an idle HTTP keep-alive socket must not hold the process open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)))
