/**
 * Measuring one piece of work: CPU time of this process (user + system, so
 * work on libuv's threads counts too) and wall time, plus the few statistics
 * and the table printing the benchmarks share.
 */

export interface Sample {
  cpuMs: number
  wallMs: number
}

/**
 * Time `work`. No collection is forced around it: a forced full GC shrinks
 * the heap and makes the next sample pay for regrowing it, which inflates
 * every figure and favours nobody. Garbage collection, JIT compilation and
 * libuv threads of this process are all counted, as a host would pay them.
 */
export async function measure(work: () => Promise<unknown>): Promise<Sample> {
  const cpuBefore = process.cpuUsage()
  const wallBefore = process.hrtime.bigint()
  await work()
  const wallNs = process.hrtime.bigint() - wallBefore
  const cpu = process.cpuUsage(cpuBefore)
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: Number(wallNs) / 1e6 }
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5)
}

/** The `q` quantile (0 to 1), interpolating between the two nearest values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0)
    return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const below = Math.floor(position)
  const above = Math.ceil(position)
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below)
}

/** Print rows as a left-aligned text table with a header rule. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map(row => row[column].length)))
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()
  console.log(line(header))
  console.log(widths.map(width => '-'.repeat(width)).join('  '))
  for (const row of rows)
    console.log(line(row))
}
