/**
 * The built-in chat profiles: what a chat product turns on for every
 * conversation (auto-compaction, the repeat guard, large results kept on
 * disk, images shrunk once and kept inline up to the provider's limits), on
 * two tool sets: `build` changes and runs things, `plan` only looks.
 */

import type { AgentBehavior, MediaBudget } from '../knobs/behavior'
import type { ChatProfile } from './types'
import { basic } from '../presets'
import { glob } from '../tools/glob'
import { grep } from '../tools/grep'
import { listFiles } from '../tools/list-files'
import { readFile } from '../tools/read-file'

/**
 * Tools whose results stay in the conversation whatever their size: a
 * `read_file` result persisted to a file the model must `read_file` again
 * would be circular, and the others are short envelopes or are the point of
 * the call.
 */
export const CHAT_PERSIST_EXCLUDE_TOOLS: readonly string[] = Object.freeze(['read_file', 'skills_use', 'tool_search', 'present_plan', 'ask_user'])

/** Inline media kept until 80 items or 20 MiB of base64, the limits providers reject a request at. */
export const CHAT_MEDIA_BUDGET: MediaBudget = Object.freeze({ maxItems: 80, maxBytes: 20 * 1024 * 1024 })

/** The longest image edge Anthropic accepts once a request carries more than 20 images. */
export const CHAT_MAX_IMAGE_EDGE = 2000

/** Bytes past which a tool result is written to `persistDir` and the model sees a preview and the path. */
export const CHAT_PERSIST_THRESHOLD = 8192

/**
 * The behavior every built-in chat profile runs with. `elideStaleReads` is
 * written out as off: a chat session lives on a prompt cache, which a stub
 * rewriting an earlier read would break (see the knob's docs).
 */
export const CHAT_BEHAVIOR: Readonly<AgentBehavior> = Object.freeze({
  autoCompact: true,
  repeatGuard: Object.freeze({}),
  persistThreshold: CHAT_PERSIST_THRESHOLD,
  persistExcludeTools: CHAT_PERSIST_EXCLUDE_TOOLS,
  maxImageEdge: CHAT_MAX_IMAGE_EDGE,
  mediaBudget: CHAT_MEDIA_BUDGET,
  elideStaleReads: false,
})

const PLAN_SYSTEM_PROMPT = [
  'You are a coding agent in planning mode: you explore a software project through read-only tools and change nothing.',
  'Find the relevant files with list_files, glob and grep, read them with read_file, and work out what the task needs.',
  'Reply with a concrete plan: the files to change, what to change in each and why, how to verify the result, and the open questions.',
].join('\n')

/** The names of the built-in chat profiles. */
export type ChatProfileName = 'build' | 'plan'

/**
 * The built-in chat profiles, each with `CHAT_BEHAVIOR`. Resolve one for a
 * session (`resolveChatProfile`) to give it the session's directories and the
 * model's context window, then run with it (`agent.run({ profile })`).
 * The map has no prototype: a host that looks a name from a request up in it
 * (`chatProfiles[name]`) finds nothing for `constructor`, `toString` or
 * `__proto__`, where a plain object would hand back `Object` itself.
 */
export const chatProfiles: Readonly<Record<ChatProfileName, ChatProfile>> = Object.freeze(Object.assign(Object.create(null) as Record<ChatProfileName, ChatProfile>, {
  build: Object.freeze({
    name: 'build',
    description: 'Reads, edits and runs things in the project: the shell and the file tools.',
    system: basic.system,
    tools: basic.tools,
    behavior: CHAT_BEHAVIOR,
  }),
  plan: Object.freeze({
    name: 'plan',
    description: 'Reads and searches the project without changing it, and answers with a plan.',
    system: PLAN_SYSTEM_PROMPT,
    tools: Object.freeze({ read_file: readFile, list_files: listFiles, glob, grep }),
    behavior: CHAT_BEHAVIOR,
  }),
}))
