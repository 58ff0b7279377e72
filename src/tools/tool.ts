import type { ToolContext, ToolDef, ToolOutput } from './types'
import { z } from 'zod'

/** What `tool()` needs: a name, a description, a zod schema and the function to run. */
export interface ToolFromSchemaOptions<Schema extends z.ZodType> {
  name: string
  description: string
  /** A zod v4 schema for the input; its JSON Schema is what the model sees. */
  input: Schema
  /** Run the tool on arguments that already passed the schema. */
  execute: (input: z.output<Schema>, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  /** Whether calls may run in parallel with other safe calls of the same turn (a function decides per input). */
  isConcurrencySafe?: boolean | ((input: z.output<Schema>) => boolean)
}

/**
 * Build a tool from a zod schema. The model sees the schema's JSON Schema
 * (input side, so fields with defaults stay optional); the model's arguments
 * are parsed before `execute`, and a parse failure is returned to the model
 * as an error result naming each bad field.
 */
export function tool<Schema extends z.ZodType>(options: ToolFromSchemaOptions<Schema>): ToolDef<z.output<Schema>> {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(options.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return {
    spec: { name: options.name, description: options.description, inputSchema },
    execute: options.execute,
    isConcurrencySafe: options.isConcurrencySafe,
    validate(input) {
      const parsed = options.input.safeParse(input)
      if (parsed.success)
        return { ok: true, value: parsed.data }
      return { ok: false, error: formatIssues(parsed.error.issues) }
    },
  }
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)'
      return `${path}: ${issue.message}`
    })
    .join('; ')
}
