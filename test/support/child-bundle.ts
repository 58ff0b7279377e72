import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/**
 * Bundle a child-process script of `test/support` into one ES module file in
 * `dir`, so each trial that runs it starts a plain Node process in
 * milliseconds. `require` is defined for the CommonJS code the bundle holds.
 */
export async function bundleChildScript(name: string, dir: string, external: string[] = []): Promise<string> {
  const outfile = join(dir, `${name}.mjs`)
  await build({
    entryPoints: [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    external,
    banner: { js: 'import { createRequire as requireFrom } from "node:module"; const require = requireFrom(import.meta.url);' },
  })
  return outfile
}
