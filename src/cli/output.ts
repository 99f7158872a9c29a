/** Where a command writes: whole lines to stdout and stderr, and whether stdout is a terminal. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
  readonly isTTY: boolean;
}

/** What a command shows, in each of its three forms. */
export interface Shown {
  /** The one JSON document of `--json`. */
  readonly json: unknown;
  /** Lines for a person at a terminal: a table, or a sentence. */
  readonly terminal: readonly string[];
  /** Plain lines for a pipe: names, bodies, a count. */
  readonly piped: readonly string[];
}

/** Prints what a command shows in the form its reader wants: JSON when asked, else a table on a terminal, else plain lines. */
export function show(output: CommandOutput, json: boolean, shown: Shown): void {
  if (json) output.out(JSON.stringify(shown.json, null, 2));
  else for (const line of output.isTTY ? shown.terminal : shown.piped) output.out(line);
}

/** A table as lines: the header, then one row a line, columns two spaces apart, no trailing spaces. */
export function tableLines(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const table = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? "").length)));
  return table.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}

/** A field as one line of a terminal: control characters (a newline, an escape sequence read from a body) escaped. */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => {
    if (char === "\n") return "\\n";
    if (char === "\t") return "\\t";
    if (char === "\r") return "\\r";
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** `text` shortened to `max` characters for a table cell, an ellipsis saying it was. */
export function shortened(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The message of anything thrown, never empty. */
export function messageOf(error: unknown): string {
  if (error instanceof Error && error.message.length > 0) return error.message;
  if (error instanceof Error) return error.name;
  return String(error);
}

/** `text` as one printable line: line breaks folded into spaces. */
export function oneLine(text: string): string {
  return printable(text.replace(/\s*\n\s*/g, " ").trim());
}

/** `count` and the noun, singular or plural: `1 message`, `3 messages`, `2 deliveries`. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
