import antfu from '@antfu/eslint-config'

export default antfu({
  type: 'lib',
  typescript: true,
  ignores: ['dist/**', 'node_modules/**', 'docs/**/*.md', 'test/fixtures/run-state/broken/**'],
}, {
  // Examples, benchmarks and child-process fixtures are scripts: top-level await is the clearest form there.
  files: ['examples/**', 'bench/**', 'scripts/**', 'test/support/*-child.ts'],
  rules: { 'antfu/no-top-level-await': 'off' },
}, {
  rules: {
    'no-console': 'off',
    'ts/explicit-function-return-type': 'off',
    'node/prefer-global/process': 'off',
    'node/prefer-global/buffer': 'off',
  },
})
