import { defineConfig } from 'tsup'
import { rechunkDist } from './scripts/rechunk-dist'

// One entry per public subpath; shared code lands in chunks.
const libraryEntries = {
  'index': 'src/index.ts',
  'agent': 'src/agent/index.ts',
  'types': 'src/types.ts',
  'errors': 'src/errors.ts',
  'providers': 'src/providers/index.ts',
  'providers/anthropic': 'src/providers/anthropic/index.ts',
  'providers/openai': 'src/providers/openai/index.ts',
  'providers/openai-compat': 'src/providers/openai-compat/index.ts',
  'providers/openrouter': 'src/providers/openrouter/index.ts',
  'providers/cerebras': 'src/providers/cerebras/index.ts',
  'tools': 'src/tools/index.ts',
  'tools/prompts': 'src/tools/prompts/index.ts',
  'presets': 'src/presets/index.ts',
  'testing': 'src/testing/index.ts',
  'session': 'src/session/index.ts',
  'session/sqlite': 'src/session/sqlite.ts',
  'contexts': 'src/contexts/index.ts',
  'contexts/sandbox': 'src/contexts/sandbox.ts',
  'contexts/docker': 'src/contexts/docker.ts',
  'mcp': 'src/mcp/index.ts',
  'chat': 'src/chat/index.ts',
  'skills': 'src/skills/index.ts',
  'durable': 'src/durable/index.ts',
  // Not a public entry: the built-in MCP connector at a fixed path, which
  // an agent without `mcpConnector` imports at run time (src/agent/mcp-runtime.ts).
  'internal/mcp-connector': 'src/mcp/connect.ts',
}

/** The package's own `#anthropic-sdk/*` imports (package.json "imports"). */
const ANTHROPIC_SDK_IMPORTS = /^#anthropic-sdk\//

export default defineConfig(options => ({
  entry: {
    ...libraryEntries,
    // The `zidane` command (package.json "bin"). Its source starts with the
    // `#!/usr/bin/env node` line, which the build keeps at the top of the entry file.
    'bin/zidane': 'src/cli/bin.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  splitting: true,
  treeshake: true,
  // Resolved where the package is loaded, not here: package.json "imports"
  // picks the SDK's CommonJS build under Node and its ES modules under a
  // bundler (docs/decisions/2026-12-04-anthropic-sdk-build-by-condition.md).
  external: [ANTHROPIC_SDK_IMPORTS],
  // The command exports nothing: declarations for the library's entries only.
  dts: { entry: libraryEntries, compilerOptions: { ignoreDeprecations: '6.0' } },
  // Fewer files for the root entry to load: what it loads at once in one chunk (scripts/rechunk-dist.ts).
  onSuccess: async () => {
    console.log(await rechunkDist(options.outDir ?? 'dist', [...Object.keys(libraryEntries), 'bin/zidane']))
  },
}))
