/**
 * Regenerates `src/providers/catalog/models.generated.ts`, zidane's bundled
 * model catalog, from the registry `@mariozechner/pi-ai` publishes in
 * `dist/models.generated.js` (itself generated from provider model lists).
 *
 *   npm run generate:models
 *
 * The package is packed into a temp directory and read there, never installed:
 * zidane wants its data, not its runtime dependencies. To move to a newer
 * registry, change SOURCE_VERSION and SOURCE_INTEGRITY together, run the
 * script, and review the diff. Same input, same bytes: the header carries the
 * source's publish date, not the day the script ran.
 */
import type { ModelInfo, ModelPricing } from '../src/providers/catalog/types'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const SOURCE_PACKAGE = '@mariozechner/pi-ai'
export const SOURCE_VERSION = '0.73.1'
/** `npm pack` reports the tarball's integrity; a mismatch means the registry served other bytes. */
const SOURCE_INTEGRITY = 'sha512-Jh4lXawZYuC83HzSIYuVum9NBqJD49i4JOt3H96cGW/924cwJMOyUs1Mv/e4QPzTXnzrqMoGviNQnvGgSu1LSg=='
const REGISTRY_FILE = 'package/dist/models.generated.js'

/**
 * Providers zidane ships (anthropic, openai, openrouter, cerebras) plus the
 * OpenAI-compatible hosts an `openaiCompat({ name })` provider is usually
 * pointed at. Keys are the registry's provider names, which are also the names
 * a host should give those providers for the bundled data to apply.
 */
export const CATALOG_PROVIDERS = [
  'anthropic',
  'cerebras',
  'deepseek',
  'fireworks',
  'google',
  'groq',
  'mistral',
  'openai',
  'openrouter',
  'xai',
] as const

const OUTPUT_FILE = fileURLToPath(new URL('../src/providers/catalog/models.generated.ts', import.meta.url))

/** The slice of a pi-ai registry entry this script reads. */
export interface RegistryModel {
  reasoning?: boolean
  input?: readonly string[]
  cost?: { input?: number, output?: number, cacheRead?: number, cacheWrite?: number }
  contextWindow?: number
  maxTokens?: number
}

/** `MODELS` as pi-ai exports it: provider → model id → entry. */
export type ModelRegistry = Readonly<Record<string, Readonly<Record<string, RegistryModel>>>>

export interface CatalogRow {
  /** `'<provider>:<modelId>'`. */
  key: string
  info: ModelInfo
}

export interface CatalogSource {
  package: string
  version: string
  /** `YYYY-MM-DD` the source version was published. */
  publishedAt: string
  providers: readonly string[]
}

/**
 * The catalog rows for `providers`, sorted by key. Throws when the registry
 * lacks one of them, so an upstream rename cannot silently empty a provider.
 */
export function buildCatalogRows(registry: ModelRegistry, providers: readonly string[] = CATALOG_PROVIDERS): CatalogRow[] {
  const rows: CatalogRow[] = []
  for (const provider of providers) {
    const models = Object.hasOwn(registry, provider) ? registry[provider] : undefined
    if (!models)
      throw new Error(`${SOURCE_PACKAGE} has no provider "${provider}"; update CATALOG_PROVIDERS`)
    for (const [modelId, model] of Object.entries(models)) {
      const info = toModelInfo(modelId, model)
      if (Object.keys(info).length > 0)
        rows.push({ key: `${provider}:${modelId}`, info })
    }
  }
  return sortRows(rows)
}

function toModelInfo(modelId: string, model: RegistryModel): ModelInfo {
  const info: ModelInfo = {}
  if (isPositiveInteger(model.contextWindow))
    info.contextWindow = model.contextWindow
  if (isPositiveInteger(model.maxTokens))
    info.maxTokens = model.maxTokens
  const pricing = toPricing(modelId, model.cost)
  if (pricing)
    info.pricing = pricing
  if (typeof model.reasoning === 'boolean')
    info.reasoning = model.reasoning
  if (Array.isArray(model.input))
    info.images = model.input.includes('image')
  return info
}

function toPricing(modelId: string, cost: RegistryModel['cost']): ModelPricing | undefined {
  if (!cost || !isRate(cost.input) || !isRate(cost.output))
    return undefined
  // The registry writes 0/0 for free models and for prices it does not know alike;
  // only an explicit `:free` id is trusted, so an unknown price never reads as $0.
  if (cost.input === 0 && cost.output === 0 && !modelId.endsWith(':free'))
    return undefined
  const pricing: ModelPricing = { input: cost.input, output: cost.output }
  // A zero cache rate is as often "not published" as "free"; leaving it out bills
  // those tokens at the input rate, which over-estimates rather than under-estimates.
  if (isRate(cost.cacheRead) && cost.cacheRead > 0)
    pricing.cacheRead = cost.cacheRead
  if (isRate(cost.cacheWrite) && cost.cacheWrite > 0)
    pricing.cacheWrite = cost.cacheWrite
  return pricing
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function isRate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

/** Code-unit order, not `localeCompare`: the output must not depend on the machine's locale. */
function sortRows(rows: readonly CatalogRow[]): CatalogRow[] {
  return [...rows].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
}

/** The generated module's text: plain data, no imports, one entry per line. */
export function renderCatalogModule(rows: readonly CatalogRow[], source: CatalogSource): string {
  const sorted = sortRows(rows)
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].key === sorted[i - 1].key)
      throw new Error(`duplicate catalog key ${sorted[i].key}`)
  }
  const lines = [
    `// Generated by scripts/generate-model-catalog.ts from ${source.package}@${source.version}`,
    `// (${REGISTRY_FILE.replace('package/', '')}, MIT, published ${source.publishedAt}). Do not edit by hand:`,
    '// run `npm run generate:models`. Prices are USD per million tokens.',
    '',
    'export const GENERATED_MODEL_SOURCE = {',
    `  package: ${quote(source.package)},`,
    `  version: ${quote(source.version)},`,
    `  publishedAt: ${quote(source.publishedAt)},`,
    `  providers: [${source.providers.map(quote).join(', ')}],`,
    '}',
    '',
    'export const GENERATED_MODELS = {',
    ...sorted.map(row => `  ${quote(row.key)}: ${renderInfo(row.info)},`),
    '}',
    '',
  ]
  return lines.join('\n')
}

function renderInfo(info: ModelInfo): string {
  const fields: string[] = []
  if (info.contextWindow !== undefined)
    fields.push(`contextWindow: ${renderNumber(info.contextWindow)}`)
  if (info.maxTokens !== undefined)
    fields.push(`maxTokens: ${renderNumber(info.maxTokens)}`)
  if (info.pricing !== undefined)
    fields.push(`pricing: ${renderPricing(info.pricing)}`)
  if (info.reasoning !== undefined)
    fields.push(`reasoning: ${info.reasoning}`)
  if (info.images !== undefined)
    fields.push(`images: ${info.images}`)
  return `{ ${fields.join(', ')} }`
}

function renderPricing(pricing: ModelPricing): string {
  const rates: string[] = [`input: ${renderNumber(pricing.input)}`, `output: ${renderNumber(pricing.output)}`]
  if (pricing.cacheRead !== undefined)
    rates.push(`cacheRead: ${renderNumber(pricing.cacheRead)}`)
  if (pricing.cacheWrite !== undefined)
    rates.push(`cacheWrite: ${renderNumber(pricing.cacheWrite)}`)
  if (pricing.cacheWrite1h !== undefined)
    rates.push(`cacheWrite1h: ${renderNumber(pricing.cacheWrite1h)}`)
  return `{ ${rates.join(', ')} }`
}

function renderNumber(value: number): string {
  if (!Number.isFinite(value))
    throw new Error(`cannot render ${value}`)
  return String(value)
}

/** A single-quoted JS string literal. */
function quote(value: string): string {
  const escaped = JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll('\'', '\\\'')
  return `'${escaped}'`
}

function run(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
}

/** Packs and extracts the pinned source, imports its registry, and writes the catalog module. */
async function main(): Promise<void> {
  const spec = `${SOURCE_PACKAGE}@${SOURCE_VERSION}`
  const dir = mkdtempSync(join(tmpdir(), 'zidane-model-catalog-'))
  try {
    const packed = JSON.parse(run('npm', ['pack', spec, '--json', '--pack-destination', dir], dir)) as Array<{ filename: string, integrity: string }>
    const tarball = packed[0]
    if (tarball?.integrity !== SOURCE_INTEGRITY)
      throw new Error(`${spec}: integrity ${tarball?.integrity} does not match the pinned ${SOURCE_INTEGRITY}`)
    run('tar', ['-xzf', join(dir, tarball.filename), '-C', dir])

    const times = JSON.parse(run('npm', ['view', spec, 'time', '--json'], dir)) as Record<string, string>
    const published = times[SOURCE_VERSION]
    if (!published)
      throw new Error(`${spec}: the registry reports no publish time`)

    const { MODELS } = await import(pathToFileURL(join(dir, REGISTRY_FILE)).href) as { MODELS: ModelRegistry }
    const rows = buildCatalogRows(MODELS)
    const text = renderCatalogModule(rows, {
      package: SOURCE_PACKAGE,
      version: SOURCE_VERSION,
      publishedAt: published.slice(0, 10),
      providers: CATALOG_PROVIDERS,
    })
    writeFileSync(OUTPUT_FILE, text)
    console.log(`wrote ${rows.length} models (${Buffer.byteLength(text)} bytes) from ${spec} to ${OUTPUT_FILE}`)
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// Run only as a script; tests import the pure transform above.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
