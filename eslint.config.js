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
