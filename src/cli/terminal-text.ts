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

/** A message as one printable line: its line breaks folded into spaces. */
export function oneLine(text: string): string {
  return printable(text.replace(/\s*\n\s*/g, " ").trim());
}

/** An error's message, or its name when it has none. */
export function messageOf(error: unknown): string {
  if (error instanceof Error && error.message.length > 0) return error.message;
  if (error instanceof Error) return error.name;
  return String(error);
}
