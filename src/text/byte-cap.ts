/** A byte cap as people set it: whole MiB as `N MiB`, anything else as an exact count of bytes. */
export function describeByteCap(bytes: number): string {
  const mib = bytes / (1024 * 1024)
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`
}
