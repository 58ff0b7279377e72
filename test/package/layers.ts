/**
 * The layer table of `src/`, bottom to top. A module may import modules of its
 * own layer or of a lower one, never of a higher one; `layering.test.ts`
 * checks it, together with "no import cycle at all". Paths are relative to
 * `src/` and match a file or a folder prefix; the longest match wins, so a
 * file can sit above the rest of its folder (see docs/architecture/layering.md).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // 0. The kernel: conversation shapes, usage and stop reasons, clock, timeouts, errors.
  ['core/', 'errors.ts', 'errors/', 'debug.ts'],
  // 1. Leaf helpers and the pure wire view.
  ['text/', 'tool-state/', 'wire/', 'decisions/', 'media/', 'schema/', 'telemetry/options.ts'],
  // 2. Provider adapters and the session store.
  ['providers/', 'session/'],
  // 3. The knob types (`AgentBehavior`) and their defaults.
  ['knobs/'],
  // 4. Execution contexts and tools (peers: tools run in a context, a context can be derived from a tool call).
  ['contexts/', 'tools/', 'skills/'],
  // 5. MCP: turns servers into tools.
  ['mcp/', 'plugins/'],
  // 6. The hook bus and the event map composed from every domain below.
  ['hooks/', 'policies/repeat-guard/hooks.ts', 'policies/skills/hooks.ts'],
  // 7. The policy interface and the built-in policies (phases that return decisions).
  ['policies/'],
  // 8. The loop and its run state, the durable runtimes' effects (which record the loop's attempts), telemetry.
  ['loop/', 'durable/', 'telemetry/'],
  // 9. The agent: options, createAgent, run.
  ['agent/'],
  // 10. What composes agents, and the public barrels (the Restate start runner builds an agent per invocation).
  ['presets/', 'testing/', 'chat/', 'durable/restate/', 'durable/index.ts', 'tools/spawn.ts', 'tools/spawn-child.ts', 'tools/spawn-state.ts', 'tools/index.ts', 'index.ts', 'types.ts'],
  // 11. The `zidane` command: a host built on the public entries.
  ['cli/'],
]
