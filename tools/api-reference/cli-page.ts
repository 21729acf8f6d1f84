/**
 * The CLI's page of the API reference: every command of `eo`, its arguments and its options, read
 * from the commander program itself, so that the page says what `eo <command> --help` says.
 */
import type { Argument, Command, Option } from 'commander';

/** The page's path under the reference's folder. */
export const CLI_PAGE = 'cli.md';

/** The page for `program` (every group registered: `everyCommand()` of bin/eo-program.ts). */
export function renderCliPage(program: Command): string {
  const commands = leafFirstWalk(program).filter((command) => command !== program);
  return [
    '# The `eo` CLI',
    '',
    `${sentence(program.description())} Run \`npx eo <command> --help\` for the same text in a terminal; in a checkout, \`npm run eo -- <command>\`.`,
    '',
    '| Command | What it does |',
    '| --- | --- |',
    ...commands.map((command) => `| [\`${fullName(command)}\`](#${anchor(command)}) | ${cell(command.description())} |`),
    '',
    ...commands.flatMap(commandSection),
  ].join('\n');
}

/** The program's commands, each before its subcommands, in the order they were added. */
function leafFirstWalk(command: Command): Command[] {
  return [command, ...command.commands.flatMap(leafFirstWalk)];
}

function fullName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** GitHub's anchor for the command's heading. */
function anchor(command: Command): string {
  return fullName(command).replace(/ /g, '-');
}

function commandSection(command: Command): string[] {
  const args = command.registeredArguments;
  const options = command.options.filter((option) => !option.hidden);
  return [
    `## ${fullName(command)}`,
    '',
    `\`${`${fullName(command)} ${command.usage()}`.trim()}\``,
    '',
    sentence(command.description()),
    '',
    ...(args.length > 0 ? ['| Argument | What it is |', '| --- | --- |', ...args.map(argumentRow), ''] : []),
    ...(options.length > 0 ? ['| Option | What it does | Default |', '| --- | --- | --- |', ...options.map(optionRow), ''] : []),
  ];
}

function argumentRow(argument: Argument): string {
  const name = argument.required ? `<${argument.name()}>` : `[${argument.name()}]`;
  return `| \`${name}${argument.variadic ? '...' : ''}\` | ${cell(argument.description)} |`;
}

function optionRow(option: Option): string {
  const shown = option.defaultValueDescription ?? (option.defaultValue === undefined ? undefined : JSON.stringify(option.defaultValue));
  const choices = option.argChoices ? ` (one of ${option.argChoices.map((choice) => `\`${choice}\``).join(', ')})` : '';
  return `| \`${option.flags}\` | ${cell(option.description)}${choices} | ${shown === undefined ? '' : `\`${shown}\``} |`;
}

/** Text in a table cell: one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** A description as a sentence: capitalized, ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capitalized = trimmed[0]?.toUpperCase() + trimmed.slice(1);
  return /[.!?)]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}
