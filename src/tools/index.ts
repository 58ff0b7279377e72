export { checkJsonSchema } from './json-schema'
export { tool } from './tool'
export type { ToolFromSchemaOptions } from './tool'
export type { ToolContext, ToolDef, ToolMap, ToolOutcome, ToolOutput, ValidationResult } from './types'
