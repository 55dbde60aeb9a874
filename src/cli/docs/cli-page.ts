import { commandSpecs, type CommandSpec, type FlagSpec } from './flag-recorder.js';
import { ENVIRONMENT } from './environment.js';
import { cell, code, generatedNotice, headingAnchor, page, table } from './markdown.js';

function typeOf(f: FlagSpec): string {
  const base = f.choices ? f.choices.map((c) => code(String(c))).join(' | ') : (f.type ?? 'string');
  return f.array === true ? `${base}, repeatable` : base;
}

function defaultOf(f: FlagSpec): string {
  if (f.default === undefined) return '';
  return code(typeof f.default === 'string' ? f.default : JSON.stringify(f.default));
}

function flagName(f: FlagSpec): string {
  if (f.positional) return code(`<${f.name}>`);
  // A boolean that defaults to true is turned off with --no-<name>.
  return f.type === 'boolean' && f.default === true
    ? `${code(`--${f.name}`)}, ${code(`--no-${f.name}`)}`
    : code(`--${f.name}`);
}

function envOf(f: FlagSpec): string {
  if (f.positional) return '';
  return ENVIRONMENT.filter((v) => v.flags.includes(f.name))
    .map((v) => `[${code(`$${v.name}`)}](#environment)`)
    .join(', ');
}

function commandName(cmd: CommandSpec): string {
  return cmd.command.split(' ')[0] ?? cmd.command;
}

function commandSection(cmd: CommandSpec): string[] {
  // Positionals first, as the usage line names them; flags in the order the builder declares them.
  const ordered = [...cmd.flags.filter((f) => f.positional), ...cmd.flags.filter((f) => !f.positional)];
  const rows = ordered.map((f) => [
    flagName(f),
    cell(typeOf(f)),
    cell(defaultOf(f)),
    envOf(f),
    cell(f.describe ?? ''),
  ]);
  const examples = cmd.examples.map(([line, what]) => `${line.replace(/\$0/g, 'jobstorm')}    # ${what}`);
  return [
    `## ${commandName(cmd)}`,
    `\`\`\`text\njobstorm ${cmd.command}\n\`\`\``,
    `${cmd.describe}.`,
    rows.length > 0 ? table(['argument', 'type', 'default', 'environment', 'description'], rows) : '',
    examples.length > 0 ? `\`\`\`console\n${examples.join('\n')}\n\`\`\`` : '',
  ];
}

/** docs/reference/cli.md: every command and flag, from the yargs builders in src/cli. */
export function cliPage(): string {
  const commands = commandSpecs();
  const index = commands.map(
    (c) => `| [${code(commandName(c))}](#${headingAnchor(commandName(c))}) | ${cell(c.describe)} |`,
  );
  return page([
    generatedNotice(['the yargs builders of src/cli/commands', 'src/cli/docs/environment.ts']),
    '# Command-line reference',
    'Every command and flag of `jobstorm`, as `jobstorm <command> --help` shows them. `--help` and `--version` work everywhere. A mistyped flag or command is a usage error (exit 2) with nothing sent; see [exit codes](../exit-codes.md).',
    ['| command | what it does |', '| --- | --- |', ...index].join('\n'),
    ...commands.flatMap(commandSection),
    '## Environment',
    'The variables jobstorm reads. A key is best given this way, never on the command line.',
    table(
      ['variable', 'flag', 'what it does'],
      ENVIRONMENT.map((v) => [
        code(v.name),
        v.flags.map((f) => code(`--${f}`)).join(', '),
        cell(v.description),
      ]),
    ),
  ]);
}
