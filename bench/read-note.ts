/**
 * The conversation every loop benchmark plays: its system prompt, its prompt
 * and its one tool. No imports, so a bundled benchmark child that loads it
 * loads nothing else with it.
 */

/** The system prompt every loop sends. */
export const SYSTEM = 'You are a careful coding assistant. Read the files you need before answering.'

/** The user prompt every run starts with. */
export const PROMPT = 'Check every module under src/ and tell me when you are done.'

/** The tool every loop offers, as a JSON Schema spec (zidane's `ToolSpec` shape). */
export const READ_NOTE_SPEC = {
  name: 'read_note',
  description: 'Read the note kept for a source file.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path relative to the repository root.' },
      maxLines: { type: 'integer', description: 'Most lines to return.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
}

/** The tool every loop runs: cheap and deterministic, so the loop is what gets measured. */
export function readNote(input: Record<string, unknown>): string {
  return `${String(input.path)}: 12 lines, last changed in the previous commit.`
}
