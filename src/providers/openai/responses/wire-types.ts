/**
 * The input items this provider sends, narrowed to the fields it writes. The
 * SDK's own types also describe output-only fields (`status`, `annotations`,
 * item ids) that a stateless request must not carry, so the builder works
 * with these and hands the list to the SDK at the call site.
 */

export interface InputTextPart { type: 'input_text', text: string }
export interface InputImagePart { type: 'input_image', image_url: string, detail: 'auto' }
export interface InputFilePart { type: 'input_file', filename: string, file_data: string }
export type UserContentPart = InputTextPart | InputImagePart | InputFilePart

export interface UserMessageItem { type: 'message', role: 'user', content: UserContentPart[] }
export interface AssistantMessageItem { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: string }] }
export interface ReasoningItem { type: 'reasoning', id: string, encrypted_content: string, summary: { type: 'summary_text', text: string }[] }
export interface FunctionCallItem { type: 'function_call', call_id: string, name: string, arguments: string }
export interface FunctionCallOutputItem { type: 'function_call_output', call_id: string, output: string }

export type ResponsesInputItem
  = | UserMessageItem
    | AssistantMessageItem
    | ReasoningItem
    | FunctionCallItem
    | FunctionCallOutputItem

export interface ResponsesFunctionTool {
  type: 'function'
  name: string
  description: string
  parameters: Record<string, unknown>
  strict: false
}
