/**
 * Whether a `shell` command edits files by script: an in-place stream editor
 * (`sed -i`, `perl -i`), Python that writes files, or a heredoc into a file.
 * For `shellToolNudges` (`./shell-tool-nudges.ts`).
 *
 * The command comes from the model and may be very long. A pattern such as
 * "`sed`, then anywhere in the same simple command an `-i` option" tried at
 * every `sed` rescans the rest of the command for each one, which is work in
 * the square of its length (150 KB of `sed sed …` took seconds). Here each
 * simple command, and each stretch between `open(` and the next `)`, is read
 * once: a later `sed` in a simple command already read can only see options
 * the first one saw.
 */

// The heredoc patterns read a bounded stretch after each `cat` / `tee`: linear as they are.
const CAT_HEREDOC = /(?:^|[\s;&|(])cat\s*(?:>>?\s*[^\s<>|;&]+\s*<<|<<-?\s*['"]?\w+['"]?\s*>>?\s*[^\s<>|;&]+)/
const TEE_HEREDOC = /(?:^|[\s;&|(])tee\s+(?:-a\s+)?[^\s<>|;&]+\s*<</
const PYTHON = /(?:^|[\s;&|(])python[\d.]*(?=\s|$)/
const PYTHON_WRITE_CALL = /\.write\(|\.write_text\(/

// A command name at the start, or after a blank, `;`, `&`, `|` or `(` (looked behind, so no start is skipped).
const SED = /(?<![^\s;&|(])sed\s/g
const PERL = /(?<![^\s;&|(])perl\s/g
// The in-place options, tried where an argument starts (what follows them up to the next blank does not matter).
const SED_IN_PLACE_OPTION = /-[A-Za-hj-z]*i|--in-place/y
const PERL_IN_PLACE_OPTION = /-[A-Za-hj-z]*i/y
const SIMPLE_COMMAND_END = /[\n;&|]/g
const OPEN_CALL = /open\(/g
// After a comma inside `open(…)`: a write, append or exclusive-create mode.
const WRITE_MODE = /,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]/y

/** Whether `command` edits files by script. Linear in the command's length. */
export function isScriptedEdit(command: string): boolean {
  return runsWithOption(command, SED, SED_IN_PLACE_OPTION)
    || runsWithOption(command, PERL, PERL_IN_PLACE_OPTION)
    || (PYTHON.test(command) && (PYTHON_WRITE_CALL.test(command) || opensForWriting(command)))
    || CAT_HEREDOC.test(command)
    || TEE_HEREDOC.test(command)
}

/**
 * Whether a command found by `name` (a blank after it) has an argument
 * starting with `option` in the same simple command: right after the name,
 * or after any blank before the simple command ends. An argument at the
 * start of the next line counts too, as the line end is itself a blank.
 */
function runsWithOption(command: string, name: RegExp, option: RegExp): boolean {
  name.lastIndex = 0
  // The end of the last simple command read: a name found before it saw nothing new.
  let readThrough = -1
  for (let found = name.exec(command); found; found = name.exec(command)) {
    const from = found.index + found[0].length
    if (from <= readThrough)
      continue
    SIMPLE_COMMAND_END.lastIndex = from
    const end = SIMPLE_COMMAND_END.exec(command)?.index ?? command.length
    if (startsWith(command, from, option))
      return true
    for (let at = from + 1; at <= end; at++) {
      if (isBlank(command.charCodeAt(at - 1)) && startsWith(command, at, option))
        return true
    }
    if (command.charCodeAt(end) === 0x0A && startsWith(command, end + 1, option))
      return true
    readThrough = end
  }
  return false
}

/** Whether some `open(` has, before its next `)`, a comma followed by a write mode. */
function opensForWriting(command: string): boolean {
  OPEN_CALL.lastIndex = 0
  let readThrough = -1
  for (let found = OPEN_CALL.exec(command); found; found = OPEN_CALL.exec(command)) {
    const from = found.index + found[0].length
    if (from <= readThrough)
      continue
    const close = command.indexOf(')', from)
    const end = close === -1 ? command.length : close
    for (let comma = command.indexOf(',', from); comma !== -1 && comma < end; comma = command.indexOf(',', comma + 1)) {
      if (startsWith(command, comma, WRITE_MODE))
        return true
    }
    readThrough = end
  }
  return false
}

function startsWith(command: string, at: number, pattern: RegExp): boolean {
  pattern.lastIndex = at
  return pattern.test(command)
}

/** What `\s` matches, by code unit. */
function isBlank(code: number): boolean {
  return (code >= 0x09 && code <= 0x0D) || code === 0x20 || code === 0xA0 || code === 0x1680
    || (code >= 0x2000 && code <= 0x200A) || code === 0x2028 || code === 0x2029 || code === 0x202F
    || code === 0x205F || code === 0x3000 || code === 0xFEFF
}
