/**
 * Where `quickjs-wasi` (an optional peer) is, and its WebAssembly module,
 * compiled once per process and shared by every sandbox worker.
 */

import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { mergeObjects } from '../../core/merge-objects'
import { MissingPeerDependencyError } from '../../errors'

/** The npm package the sandbox runs on. */
export const QUICKJS_PACKAGE = 'quickjs-wasi'
/** What needs it, as a missing-peer error names it. */
const FEATURE = 'behavior.codemode'

/** Where the package's module and its WebAssembly binary are. */
export interface QuickJsLocation {
  /** A `file:` URL of the package's ES module entry, which a worker imports. */
  readonly moduleUrl: string
  /** The path of `quickjs.wasm`. */
  readonly wasmPath: string
}

/** How a module is resolved (Node's `require.resolve` by default; a test passes its own). */
export type ModuleResolver = (specifier: string) => string

const defaultResolver: ModuleResolver = specifier => createRequire(import.meta.url).resolve(specifier)

let located: QuickJsLocation | undefined

/**
 * Find the package, synchronously, so a run with codemode and without the
 * package fails before its first turn with `MissingPeerDependencyError`.
 */
export function locateQuickJs(resolve: ModuleResolver = defaultResolver): QuickJsLocation {
  if (located && resolve === defaultResolver)
    return located
  let found: QuickJsLocation
  try {
    found = {
      moduleUrl: pathToFileURL(resolve(QUICKJS_PACKAGE)).href,
      wasmPath: resolve(`${QUICKJS_PACKAGE}/quickjs.wasm`),
    }
  }
  catch (error) {
    if (isMissing(error))
      throw new MissingPeerDependencyError(QUICKJS_PACKAGE, FEATURE, { cause: error })
    throw error
  }
  if (resolve === defaultResolver)
    located = found
  return found
}

/** The package's location and its compiled module. */
export interface QuickJsEngine extends QuickJsLocation {
  readonly wasm: WebAssembly.Module
}

let engine: Promise<QuickJsEngine> | undefined

// The global is typed only as a namespace without the DOM library.
const webAssembly = (globalThis as unknown as { WebAssembly: { compile: (bytes: Uint8Array) => Promise<WebAssembly.Module> } }).WebAssembly

/** Compile `quickjs.wasm` once; a failed load is forgotten so the next script tries again. */
export function loadQuickJs(): Promise<QuickJsEngine> {
  engine ??= (async () => {
    const location = locateQuickJs()
    const wasm = await webAssembly.compile(await readFile(location.wasmPath))
    return mergeObjects(location, { wasm })
  })()
  engine.catch(() => {
    engine = undefined
  })
  return engine
}

function isMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')
    && typeof message === 'string' && message.includes(QUICKJS_PACKAGE)
}
