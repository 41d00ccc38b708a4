// typescript-eslint's recommended type-checked rules over every TypeScript file of the project.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.cache/', 'results/', 'emulator/', 'ycsb/target/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // The convention tsc's noUnusedParameters already follows: a leading underscore marks a
      // parameter kept for its type or position, and `{ dropped: _dropped, ...rest }` is how a
      // property is left out of a copy; rewriting those would make the code worse, not safer.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
);
