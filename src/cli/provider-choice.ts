/**
 * Which provider the command runs on: the one named with `--provider`, else
 * the first whose API key is in the environment, else (with only
 * `--base-url`) an OpenAI-compatible server. The provider's module is
 * imported only once chosen, so the others' SDKs never load.
 */

import type { Provider } from '../providers/types'
import type { CliArgs, CliProviderName } from './args'
import { mergeObjects } from '../core/merge-objects'
import { UsageError } from './args'

/** The environment variable each provider reads its key from, in the order the environment is searched. */
export const PROVIDER_KEYS: readonly (readonly [CliProviderName, string])[] = Object.freeze([
  ['anthropic', 'ANTHROPIC_API_KEY'],
  ['openai', 'OPENAI_API_KEY'],
  ['openrouter', 'OPENROUTER_API_KEY'],
  ['cerebras', 'CEREBRAS_API_KEY'],
] as const)

/**
 * The key an OpenAI-compatible server gets: `ZIDANE_API_KEY`, else
 * `OPENAI_API_KEY`, else a placeholder (local servers take any key, and the
 * client refuses to send none).
 */
export const COMPAT_KEY_VARIABLE = 'ZIDANE_API_KEY'
const NO_KEY = 'none'

/** The provider name the command will use, or a `UsageError` saying how to pick one. */
export function chooseProviderName(args: Pick<CliArgs, 'provider' | 'baseURL'>, env: Readonly<Record<string, string | undefined>>): CliProviderName {
  if (args.provider !== undefined)
    return args.provider
  const found = PROVIDER_KEYS.find(([, variable]) => env[variable])
  if (found && args.baseURL === undefined)
    return found[0]
  if (args.baseURL !== undefined)
    return found?.[0] ?? 'openai-compat'
  throw new UsageError(`no provider: set one of ${PROVIDER_KEYS.map(([, variable]) => variable).join(', ')}, or pass --provider, or --base-url for an OpenAI-compatible server`)
}

/** Build the chosen provider. Keys stay in the environment: the provider reads them at its first request. */
export async function createCliProvider(name: CliProviderName, args: Pick<CliArgs, 'model' | 'baseURL'>, env: Readonly<Record<string, string | undefined>>): Promise<Provider> {
  const common = mergeObjects(args.model === undefined ? {} : { defaultModel: args.model }, args.baseURL === undefined ? {} : { baseURL: args.baseURL })
  const keyOf = (variable: string) => env[variable] || undefined
  switch (name) {
    case 'anthropic': {
      const { anthropic } = await import('../providers/anthropic')
      return anthropic(mergeObjects(common, { apiKey: keyOf('ANTHROPIC_API_KEY') }))
    }
    case 'openai': {
      const { openai } = await import('../providers/openai')
      return openai(mergeObjects(common, { apiKey: keyOf('OPENAI_API_KEY') }))
    }
    case 'openrouter': {
      const { openrouter } = await import('../providers/openrouter')
      return openrouter(mergeObjects(common, { apiKey: keyOf('OPENROUTER_API_KEY') }))
    }
    case 'cerebras': {
      const { cerebras } = await import('../providers/cerebras')
      return cerebras(mergeObjects(common, { apiKey: keyOf('CEREBRAS_API_KEY') }))
    }
    case 'openai-compat': {
      if (args.baseURL === undefined || args.model === undefined)
        throw new UsageError('--provider openai-compat needs --base-url and --model')
      const { openaiCompat } = await import('../providers/openai-compat')
      return openaiCompat({ baseURL: args.baseURL, defaultModel: args.model, apiKey: keyOf(COMPAT_KEY_VARIABLE) ?? keyOf('OPENAI_API_KEY') ?? NO_KEY })
    }
  }
}
