/** Codemode: the model writes one script that calls the run's tools from a sandbox. */

import { defineFields, defineKnobs, either, isBoolean, oneOf, shape, wholeAtLeast } from './define'

/** The object form of `behavior.codemode`. */
export interface CodemodeConfig {
  /**
   * `'on'` (default): the `codemode` tool joins the usual tools. `'only'`: the
   * tools scripts can call leave the wire; native ones are declared inside the
   * `codemode` description (within `inlineBudget`), the injected `tool_search`
   * / `call_tool` are dropped, and scripts find MCP tools with `searchTools()`.
   */
  mode?: 'on' | 'only'
  /** How the system prompt lists lazy (MCP) tools while codemode is on: `'names'` (default) or `'full'` (with descriptions). */
  catalog?: 'full' | 'names'
  /** In `'only'` mode, a direct call of a tool declared for scripts gets one line naming the script form (twice per tool at most). Default true. */
  directCallNotes?: boolean
  /** Estimated tokens of native tool declarations the `'only'` description holds; tools past it are listed by name. Default 3000. */
  inlineBudget?: number
  /** Report each script's prints and nested calls live on `tool:progress`. Default false. */
  streamProgress?: boolean
  /** A script's time limit in milliseconds (real time, busy or waiting). Default 30000. */
  timeoutMs?: number
  /** The memory a script's VM may allocate, in bytes. Default 67108864 (64 MiB). */
  memoryLimitBytes?: number
}

/** Codemode's knob. */
export interface CodemodeKnobs {
  /**
   * Add the `codemode` tool (needs the optional peer `quickjs-wasi`): `true`
   * or `'on'` next to the usual tools, `'only'` in place of the tools scripts
   * can call, or a `CodemodeConfig`. Not added when `run({ tools })` replaces
   * the registry or the host has a tool named `codemode`. Default off.
   */
  codemode?: boolean | 'on' | 'only' | CodemodeConfig
}

/** What unset fields of `codemode` behave as. */
export const CODEMODE_DEFAULTS = Object.freeze({
  mode: 'on',
  catalog: 'names',
  directCallNotes: true,
  inlineBudget: 3000,
  streamProgress: false,
  timeoutMs: 30_000,
  memoryLimitBytes: 64 * 1024 * 1024,
} satisfies Required<CodemodeConfig>)

/** The smallest memory limit a VM starts with (its own runtime takes about 1 MiB). */
export const MIN_CODEMODE_MEMORY_BYTES = 4 * 1024 * 1024

const CODEMODE_FIELDS = defineFields<CodemodeConfig>('codemode', CODEMODE_DEFAULTS, {
  mode: { doc: '`\'only\'`: the tools scripts can call leave the wire and are declared inside `codemode`.', check: oneOf('on', 'only') },
  catalog: { doc: 'How the system prompt lists lazy (MCP) tools while codemode is on: `\'names\'` or `\'full\'`.', check: oneOf('full', 'names') },
  directCallNotes: { doc: 'In `\'only\'` mode, a direct call of a declared tool gets a line naming the script form.', check: isBoolean },
  inlineBudget: { doc: 'Estimated tokens of tool declarations the `\'only\'` description holds.', check: wholeAtLeast(0) },
  streamProgress: { doc: 'Report a script\'s prints and nested calls live on `tool:progress`.', check: isBoolean },
  timeoutMs: { doc: 'A script\'s time limit in milliseconds (real time).', check: wholeAtLeast(1) },
  memoryLimitBytes: { doc: 'The memory a script\'s VM may allocate, in bytes.', check: wholeAtLeast(MIN_CODEMODE_MEMORY_BYTES) },
})

/** The codemode slice. */
export const CODEMODE_KNOBS = defineKnobs<CodemodeKnobs, Record<never, never>>('codemode', {}, {
  codemode: {
    doc: 'The `codemode` tool: scripts that call the run\'s tools from a QuickJS sandbox (`true`, `\'on\'`, `\'only\'` or fields).',
    defaultLabel: 'off',
    check: either(isBoolean, oneOf('on', 'only'), shape(CODEMODE_FIELDS)),
    fields: CODEMODE_FIELDS,
  },
})

/** `behavior.codemode` with every field filled in, or `undefined` when codemode is off. */
export type ResolvedCodemode = Readonly<Required<CodemodeConfig>>

/** Read `behavior.codemode`: `undefined` when off, else every field with its default. */
export function resolveCodemodeKnob(value: CodemodeKnobs['codemode']): ResolvedCodemode | undefined {
  if (value === undefined || value === false)
    return undefined
  if (value === true || value === 'on' || value === 'only')
    return Object.freeze({ ...CODEMODE_DEFAULTS, mode: value === 'only' ? 'only' : 'on' })
  const defined = Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined))
  return Object.freeze({ ...CODEMODE_DEFAULTS, ...defined })
}
