import { defineConfig } from 'tsup'

// One entry per public subpath; shared code lands in chunks.
export default defineConfig({
  entry: {
    'index': 'src/index.ts',
    'agent': 'src/agent/index.ts',
    'types': 'src/types.ts',
    'errors': 'src/errors.ts',
    'providers': 'src/providers/index.ts',
    'providers/anthropic': 'src/providers/anthropic/index.ts',
    'tools': 'src/tools/index.ts',
    'testing': 'src/testing/index.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  splitting: true,
  treeshake: true,
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
})
