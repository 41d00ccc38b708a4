/** Reading the project's markdown as a formatter may lay it out. */

/** A markdown table's cells, row by row, the separator row left out: the same table whatever padding a formatter gave it. */
export function tableCells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((row) =>
      row
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
    .filter((row) => !row.every((cell) => /^:?-+:?$/.test(cell)));
}

/** The text between two marker lines (exclusive), or undefined when either is missing. */
export function between(text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  return from < 0 || to < 0 ? undefined : text.slice(from + start.length, to);
}

/** The body of the fenced code block whose info string is `info` (e.g. `yaml my-topology.yaml`). */
export function fencedBlock(text: string, info: string): string | undefined {
  const m = new RegExp(`^\`\`\`${info.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text);
  return m?.[1];
}
