/**
 * The JSON Schema validator zidane's MCP clients use in place of the SDK's
 * default (Ajv). The SDK checks a tool's `structuredContent` against the
 * `outputSchema` the server published, and zidane checks an elicitation
 * answer against the server's `requestedSchema`. Ajv runs `pattern` on V8's
 * backtracking engine, and here the server writes both the pattern and (for
 * `structuredContent`) the string it is tested on: `^(a+)+$` and a few dozen
 * `a`s would freeze the host process, with no timeout able to fire. zidane's
 * own checker (`../tools/json-schema.ts`) runs patterns on RE2, in time
 * linear in the string, and every schema here is marked as the server's, so
 * a pattern RE2 cannot run is ignored rather than handed to V8.
 *
 * The checker reads the subset of JSON Schema tools use and ignores other
 * keywords, so it is more lenient than Ajv on exotic schemas; a server still
 * checks what it produces, and zidane checks results for what could hurt a
 * run (size, depth, block shapes) elsewhere.
 */

import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { joinProblems } from '../text/problem-list'
import { checkJsonSchema, untrustedSchema } from '../tools/json-schema'

type Schema = Record<string, unknown>

/** A validator for schemas an MCP server sent. */
export const serverSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
    const root = untrustedSchema(schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schema as Schema : {})
    return (input) => {
      const problems = checkJsonSchema(root, input)
      return problems.length === 0
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: joinProblems(problems) }
    }
  },
}
