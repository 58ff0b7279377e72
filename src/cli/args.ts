/**
 * The command line of `zidane`, read with `node:util` `parseArgs`: every
 * value checked before anything starts, so a typo fails with exit code 2 and
 * the usage, never halfway through a run.
 */

import type { ThinkingLevel } from '../providers/thinking'
import { parseArgs } from 'node:util'
import { THINKING_LEVELS } from '../providers/thinking'
import { isValidSessionId } from '../session/stores/session-id'

/** The providers `--provider` accepts. */
export const CLI_PROVIDERS = Object.freeze(['anthropic', 'openai', 'openai-compat', 'openrouter', 'cerebras'] as const)
export type CliProviderName = typeof CLI_PROVIDERS[number]

/** The profiles `--profile` accepts (the built-in chat profiles). */
export const CLI_PROFILES = Object.freeze(['build', 'plan'] as const)
export type CliProfileName = typeof CLI_PROFILES[number]

/** Longest prompt accepted from the command line or standard input, in bytes. */
export const MAX_PROMPT_BYTES = 1024 * 1024

/** What the command line asked for. */
export interface CliArgs {
  readonly prompt?: string
  readonly help: boolean
  readonly version: boolean
  readonly list: boolean
  readonly json: boolean
  readonly resume: boolean
  /** Approve every call that needs approval without asking (`--yes`, `-y`). */
  readonly yes: boolean
  readonly session?: string
  readonly provider?: CliProviderName
  readonly model?: string
  readonly baseURL?: string
  readonly profile: CliProfileName
  readonly maxCostUsd?: number
  readonly maxTurns?: number
  readonly contextWindow?: number
  readonly thinking?: ThinkingLevel
  readonly dataDir?: string
  readonly cwd?: string
}

/** A command line the CLI cannot run; the message says what is wrong. Exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const USAGE = `Usage: zidane [options] [prompt...]

Runs one prompt with the built-in coding tools in the current folder and
streams what the agent does. Without a prompt, reads it from standard input
when that is not a terminal.

Options:
  --provider <name>       anthropic | openai | openai-compat | openrouter | cerebras
                          (default: the first whose API key is set)
  --model <id>            model id (default: the provider's default model)
  --base-url <url>        the provider's API at another address; alone, an
                          OpenAI-compatible server (needs --model)
  --profile <name>        build (default: edits and runs) | plan (only reads)
  --session <id>          record into this session (created when missing)
  --resume                continue the latest session of this folder, or the
                          --session; without a prompt, an interrupted run
  --list                  list the saved sessions and exit
  --json                  one JSON event per line instead of text
  -y, --yes               run the shell and file writes without asking; without
                          it they are asked about on a terminal, and otherwise
                          the run stops to wait for approval (exit code 6)
  --max-cost <usd>        stop the run once it has cost this much
  --max-turns <n>         stop the run after this many model turns
  --context-window <n>    the model's context window in tokens, when the
                          catalog does not know the model
  --thinking <level>      ${THINKING_LEVELS.join(' | ')}
  --data-dir <path>       where sessions and large results are kept
                          (default: $ZIDANE_HOME, else the user data folder)
  --cwd <path>            work in this folder instead of the current one
  -h, --help              show this help
  -v, --version           print the version

Exit codes: 0 completed, 1 error, 2 usage, 3 max turns, 4 budget,
5 the model could not finish, 6 paused or waiting for approval,
130 interrupted.`

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined)
    return undefined
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0)
    throw new UsageError(`${flag} needs a positive number, got ${JSON.stringify(raw)}`)
  return value
}

function positiveInteger(flag: string, raw: string | undefined): number | undefined {
  const value = positiveNumber(flag, raw)
  if (value !== undefined && !Number.isSafeInteger(value))
    throw new UsageError(`${flag} needs a whole number, got ${JSON.stringify(raw)}`)
  return value
}

function oneOf<T extends string>(flag: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined)
    return undefined
  if (!(allowed as readonly string[]).includes(raw))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}`)
  return raw as T
}

function url(raw: string | undefined): string | undefined {
  if (raw === undefined)
    return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  }
  catch {
    throw new UsageError(`--base-url needs an http(s) URL, got ${JSON.stringify(raw)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--base-url needs an http(s) URL, got ${JSON.stringify(raw)}`)
  return raw
}

/** Read `argv` (without the node and script paths). Throws `UsageError`. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  }
  catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed
  const words = positionals.join(' ')
  // Only spaces is no prompt, as on standard input: the run would refuse it, after creating a session.
  const prompt = words.trim() === '' ? undefined : words
  if (prompt !== undefined && Buffer.byteLength(prompt) > MAX_PROMPT_BYTES)
    throw new UsageError(`the prompt is over ${MAX_PROMPT_BYTES} bytes`)
  if (values.session !== undefined && !isValidSessionId(values.session))
    throw new UsageError(`--session needs 1-128 letters, digits, "_", "-" or "." (not starting with "."), got ${JSON.stringify(values.session)}`)
  const model = values.model
  if (model !== undefined && model.trim() === '')
    throw new UsageError('--model needs a model id')
  return {
    prompt,
    help: values.help ?? false,
    version: values.version ?? false,
    list: values.list ?? false,
    json: values.json ?? false,
    resume: values.resume ?? false,
    yes: values.yes ?? false,
    session: values.session,
    provider: oneOf('--provider', values.provider, CLI_PROVIDERS),
    model,
    baseURL: url(values['base-url']),
    profile: oneOf('--profile', values.profile, CLI_PROFILES) ?? 'build',
    maxCostUsd: positiveNumber('--max-cost', values['max-cost']),
    maxTurns: positiveInteger('--max-turns', values['max-turns']),
    contextWindow: positiveInteger('--context-window', values['context-window']),
    thinking: oneOf('--thinking', values.thinking, THINKING_LEVELS),
    dataDir: values['data-dir'],
    cwd: values.cwd,
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'help': { type: 'boolean', short: 'h' },
      'version': { type: 'boolean', short: 'v' },
      'list': { type: 'boolean' },
      'json': { type: 'boolean' },
      'resume': { type: 'boolean' },
      'yes': { type: 'boolean', short: 'y' },
      'session': { type: 'string' },
      'provider': { type: 'string' },
      'model': { type: 'string' },
      'base-url': { type: 'string' },
      'profile': { type: 'string' },
      'max-cost': { type: 'string' },
      'max-turns': { type: 'string' },
      'context-window': { type: 'string' },
      'thinking': { type: 'string' },
      'data-dir': { type: 'string' },
      'cwd': { type: 'string' },
    },
  })
}
