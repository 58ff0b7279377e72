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
  // Node 20's V8 builds an object literal with a getter or setter as a dictionary (slow to build and to
  // read): the library adds accessors to built objects instead (`src/core/fast-accessors.ts`).
  files: ['src/**/*.ts'],
  rules: {
    'no-restricted-syntax': ['error', {
      selector: 'ObjectExpression > Property[kind=/^[gs]et$/]',
      message: 'An accessor in an object literal makes the object a dictionary in V8; use withGetters from src/core/fast-accessors.ts.',
    }, {
      // Each spread item becomes an argument: about 120,000 of them overflow the stack (a RangeError).
      selector: 'CallExpression[callee.property.name=/^(push|unshift|splice|min|max|fromCharCode|fromCodePoint)$/] > SpreadElement',
      message: 'A spread argument overflows the call stack for a long array; use pushAll from src/core/push-all.ts, or a loop.',
    }, {
      // The first call in a process starts ICU's number formatting or collation (about 10 ms on Node 20).
      selector: 'CallExpression[callee.property.name=/^(toLocaleString|localeCompare)$/]',
      message: 'toLocaleString and localeCompare start ICU (about 10 ms on first use); write numbers with groupDigits from src/text/group-digits.ts, compare with < and >.',
    }],
  },
}, {
  rules: {
    'no-console': 'off',
    'ts/explicit-function-return-type': 'off',
    'node/prefer-global/process': 'off',
    'node/prefer-global/buffer': 'off',
  },
})
