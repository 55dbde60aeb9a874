// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * DESIGN.md "Layout": imports point inward. Each rule below forbids a folder from importing the
 * folders it must not know about; only src/cli/ touches process and the console.
 */
const layers = {
  'src/core': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/trace',
    'src/fuzz',
  ],
  contracts: [
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/trace',
    'src/fuzz',
  ],
  'src/scenario': [
    'contracts',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/session',
    'src/fold',
    'src/fuzz',
  ],
  // The step kinds: each file holds a kind's schema, rules and runner. A step reaches the run only
  // through the interfaces in steps/iteration-state.ts, so it never imports the runner.
  'src/steps': [
    'src/schedule',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/compare',
    'src/export',
    'src/session',
    'src/fuzz',
  ],
  'src/schedule': [
    'contracts',
    'src/scenario',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/trace',
    'src/fuzz',
  ],
  'src/client': [
    'src/scenario',
    'src/schedule',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/trace',
    'src/fuzz',
  ],
  'src/blast': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/fuzz',
  ],
  // The one job fold: records become job progress here, for the checks, metrics, exports and the
  // session alike. It reads records (core) and knows none of its consumers.
  'src/fold': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/compare',
    'src/export',
    'src/library',
    'src/fuzz',
  ],
  // Trace readers (issue 49): files in, rows out. They read the disk and know only core, so the
  // layers that replay a trace take its rows without the readers knowing them.
  'src/trace': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fold',
    'src/compare',
    'src/export',
    'src/library',
    'src/fuzz',
  ],
  'src/check': [
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fuzz',
  ],
  'src/metrics': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/report',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fuzz',
  ],
  'src/report': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fuzz',
  ],
  'src/emulator': [
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/metrics',
    'src/report',
    'src/capacity',
    'src/steps',
    'src/session',
    'src/fuzz',
  ],
  'src/session': ['src/capacity', 'src/compare', 'src/emulator', 'src/fuzz'],
  'src/compare': [
    'contracts',
    'src/scenario',
    'src/schedule',
    'src/client',
    'src/blast',
    'src/runner',
    'src/check',
    'src/capacity',
    'src/emulator',
    'src/steps',
    'src/session',
    'src/fuzz',
  ],
};

/** @param {string} folder */
function patternsFor(folder) {
  const names = (layers[/** @type {keyof typeof layers} */ (folder)] ?? []).map((t) =>
    t.replace(/^src\//, ''),
  );
  return names.length ? [`^(\\.\\.?/)+(src/)?(${names.join('|')})(/|$)`] : [];
}

const noCli = '(^|/)cli(/|$)';
const noProcess = [
  { name: 'node:process', message: 'Only src/cli/ touches process (DESIGN.md rule 1).' },
  { name: 'process', message: 'Only src/cli/ touches process (DESIGN.md rule 1).' },
];

/** @param {string[]} forbidden */
function importRule(forbidden) {
  return [
    'error',
    {
      paths: noProcess,
      patterns: [
        { regex: noCli, message: 'Nothing imports src/cli/ (DESIGN.md rule 1).' },
        ...forbidden.map((regex) => ({
          regex,
          message: 'DESIGN.md: imports point inward; this folder may not import that one.',
        })),
      ],
    },
  ];
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**', '.bench-out/**', '.stryker-tmp/**'],
  },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'contracts/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: { 'no-restricted-imports': importRule([]) },
  },
  // Later entries override the rule for their folder, so each carries the whole list.
  ...Object.keys(layers).map((folder) => ({
    files: [`${folder}/**/*.ts`],
    rules: { 'no-restricted-imports': importRule(patternsFor(folder)) },
  })),
  {
    files: ['src/**/*.ts', 'contracts/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-globals': [
        'error',
        {
          name: 'process',
          message: 'DESIGN.md rule 1: only src/cli/ touches process; take what you need as an argument.',
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', message: 'DESIGN.md rule 1: only src/cli/ touches process.' },
      ],
    },
  },
  {
    // DESIGN.md rule 7: short, plain functions, and no way around the rules from inside a file.
    files: ['src/**/*.ts', 'contracts/**/*.ts'],
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
    rules: {
      complexity: ['error', 20],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
