/**
 * A whole number written with a comma between each group of three digits
 * (1,000,000), as `toLocaleString('en-US')` writes it. Written out by hand
 * because the first `toLocaleString` call in a process starts ICU's number
 * formatting, about 10 ms on Node 20, and several limits build their error
 * text when their module loads: a plain import of zidane would pay it.
 */

export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value))
    return String(value)
  const digits = String(Math.abs(value))
  const head = digits.length % 3 || 3
  let text = digits.slice(0, head)
  for (let at = head; at < digits.length; at += 3)
    text += `,${digits.slice(at, at + 3)}`
  return value < 0 ? `-${text}` : text
}
