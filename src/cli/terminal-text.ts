/**
 * Text on its way to a terminal. Model output, tool input and tool output are
 * untrusted: an escape sequence in them could move the cursor, rewrite what
 * is on screen, set the window title or (on some terminals) answer back into
 * the input. On a terminal every C0 and C1 control character except newline
 * and tab is shown in a visible form instead, and so are the bidirectional
 * overrides that can make text read differently from what it is.
 */

/** C0 (but `\t`, `\n`), DEL, C1, and the bidi embedding/override/isolate marks. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\0-\x08\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/g

function visible(char: string): string {
  const code = char.codePointAt(0)!
  if (code < 0x20)
    return `^${String.fromCodePoint(code + 0x40)}`
  if (code === 0x7F)
    return '^?'
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`
}

/** `text` with every control character but newline and tab shown as `^X` or `<U+XXXX>`. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible)
}

/** The styles the renderer uses. */
export interface Paint {
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
  readonly red: (text: string) => string
  readonly green: (text: string) => string
  readonly cyan: (text: string) => string
  readonly yellow: (text: string) => string
}

const sgr = (open: number, close: number) => (text: string) => `\x1B[${open}m${text}\x1B[${close}m`

const COLOURS: Paint = Object.freeze({
  dim: sgr(2, 22),
  bold: sgr(1, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  cyan: sgr(36, 39),
  yellow: sgr(33, 39),
})

const plain = (text: string) => text
const PLAIN: Paint = Object.freeze({ dim: plain, bold: plain, red: plain, green: plain, cyan: plain, yellow: plain })

/** How to print to one stream: colours only on a terminal (and not under `NO_COLOR`), untrusted text made safe only there. */
export interface TerminalStyle {
  readonly paint: Paint
  /** Prepare untrusted text for this stream. */
  readonly safe: (text: string) => string
}

export function terminalStyle(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): TerminalStyle {
  const colour = isTTY && !env.NO_COLOR
  return {
    paint: colour ? COLOURS : PLAIN,
    safe: isTTY ? terminalSafe : plain,
  }
}
