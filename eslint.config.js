import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.typeplane/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      'no-eval': 'error',
      'no-new-func': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // An enabled AsyncLocalStorage makes Node run async hooks for every promise of the process: pass
    // what a call needs along with it (see src/engine/review.ts), or disable the store when idle.
    files: ['src/**/*.ts'],
    ignores: ['src/telemetry/**', 'src/stacks/custom-resources/step-engine.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:async_hooks',
              importNames: ['AsyncLocalStorage', 'createHook'],
              message:
                'async context taxes every promise of every request: pass the value with the call instead (src/telemetry and the stack step context excepted)',
            },
          ],
        },
      ],
    },
  },
  {
    // A create's and a read's own steps: a literal that spreads an object and then adds members takes
    // V8's slow path on every call (~0.5 µs, src/members.ts). Name the members, or use withMembers.
    files: [
      'src/engine/{begin,create,check-create,record-backed,composed,sealing,review,read,step,invoke}.ts',
      'src/members.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement ~ Property',
          message:
            'a spread followed by members is slow on every call in Node 20 (src/members.ts): name the members, or use withMembers',
        },
      ],
    },
  },
  {
    // The scripts node preloads with --require (scripts/ts-run.cjs) are CommonJS.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read JSON answers loosely; production code may not.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
