/**
 * A Markdown table, columns as wide as their widest cell: what every bench prints (and the READMEs paste).
 * `numeric: true` right-aligns every column but the first (and marks it so in the rule line).
 */
export function markdownTable(
  header: string[],
  rows: string[][],
  options: { numeric?: boolean } = {},
): string {
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((cells) => (cells[c] ?? '').length)));
  const rightAligned = (c: number) => options.numeric === true && c > 0;
  const line = (cells: string[]) =>
    `| ${widths.map((w, c) => (rightAligned(c) ? (cells[c] ?? '').padStart(w) : (cells[c] ?? '').padEnd(w))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => `${'-'.repeat(w + 1)}${rightAligned(c) ? ':' : '-'}`).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The nearest-rank `p`th percentile of ascending `sorted` (NaN when empty): the p50 / p95 the benches print. */
export function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? NaN;
}
