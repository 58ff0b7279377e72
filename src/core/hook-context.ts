/**
 * What every hook event shares, whichever domain declares it: the ids of the
 * run it belongs to and the two handler shapes. Each domain declares its own
 * events next to its code (`session/hooks.ts`, `tools/hooks.ts`, …) from these.
 */

/** Ids shared by every run-scoped hook context. */
export interface RunHookContext {
  runId: string
  /** Subagent depth; 0 at the top level. */
  depth: number
  parentRunId?: string
  parentCallId?: string
}

/** Context of hooks that stream one turn. */
export interface StreamHookContext extends RunHookContext {
  turnId: string
}

/**
 * An observer. Its return type is a bare `void` on purpose: TypeScript lets a
 * function returning anything stand in for one returning `void`, so one-line
 * arrows such as `({ delta }) => process.stdout.write(delta)` fit (a union
 * with `Promise<void>` would refuse them). A returned promise is waited for, except on the streaming hooks.
 */
export type HookHandler<Ctx> = (ctx: Ctx) => void

/**
 * A transforming hook changes `ctx` in place; a returned value would be
 * dropped, so the type refuses one instead of letting `ctx => 'new text'` look like it works.
 */
export type TransformHookHandler<Ctx> = (ctx: Ctx) => void | Promise<void>
