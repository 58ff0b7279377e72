// Post-build step: the published declarations name Node types (streams,
// `NodeJS.Signals`, `node:http`), and a consumer compiling with `types: []`
// (the `tsc --init` default) would not load them. A triple-slash reference at
// the top of every emitted `.d.ts` makes the compiler pull in `@types/node`
// (a documented optional peer) without the user listing it in `types`.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REFERENCE = '/// <reference types="node" />\n'
const dist = fileURLToPath(new URL('../dist', import.meta.url))

const entries = await readdir(dist, { recursive: true })
let count = 0
for (const entry of entries) {
  if (!entry.endsWith('.d.ts'))
    continue
  const file = join(dist, entry)
  const text = await readFile(file, 'utf8')
  if (text.startsWith(REFERENCE))
    continue
  await writeFile(file, REFERENCE + text)
  count++
}
console.log(`reference-node-types: ${count} declaration files`)
