/**
 * `todowrite` / `todoread`: a task list the model keeps for itself on long
 * jobs. The list lives in the agent's tool state (`ctx.state`), so it is
 * committed only when a write succeeds, survives across runs of the agent,
 * and is journaled with the call by durable runtimes. A subagent starts with
 * an empty list of its own (tool state is not inherited).
 */

import type { ToolContext, ToolDef } from './types'
import { z } from 'zod'
import { tool } from './tool'

/** Tool-state key holding the list. */
export const TODO_STATE_KEY = 'todos'
/** Items one list may hold; keeps the rendered result, and the state value, small. */
export const MAX_TODOS = 100
/** Characters of one item's id. */
export const MAX_TODO_ID_CHARS = 64
/** Characters of one item's text: a short sentence, not a document (every later result repeats it). */
export const MAX_TODO_CONTENT_CHARS = 1000

/** A control character or line separator: in an id it would break the rendered line, or forge another one. */
const CONTROL_CHARACTER = /[\p{Cc}\u2028\u2029]/u
/** Line breaks in an item's text, shown as one space so each item stays one line of the list. */
const LINE_BREAKS = /[\r\n\u2028\u2029]+/g

/** Where a todo item stands. */
export type TodoStatus = 'pending' | 'in_progress' | 'completed'

/** One entry of the model's todo list. */
export interface TodoItem {
  id: string
  content: string
  status: TodoStatus
}

const status = z.enum(['pending', 'in_progress', 'completed'])

const storedItem = z.object({ id: z.string(), content: z.string(), status })

const todoWriteInput = z.object({
  todos: z.array(z.object({
    id: z.string().trim().min(1).max(MAX_TODO_ID_CHARS).refine(id => !CONTROL_CHARACTER.test(id), 'an id may not hold line breaks or control characters').optional().describe('Stable id; omit for a new item and one is assigned.'),
    content: z.string().trim().min(1).max(MAX_TODO_CONTENT_CHARS).describe('What to do, in a short imperative sentence.'),
    status: status.describe('pending, in_progress (at most one item at a time) or completed.'),
  })).max(MAX_TODOS).describe('The complete list, replacing the previous one. Send an empty list to clear it.'),
}).superRefine(({ todos }, issues) => {
  const inProgress = todos.filter(item => item.status === 'in_progress').length
  if (inProgress > 1)
    issues.addIssue({ code: 'custom', path: ['todos'], message: `${inProgress} items are in_progress; at most one may be. Finish or pause the others first.` })
  const seen = new Set<string>()
  for (const item of todos) {
    if (item.id !== undefined && seen.has(item.id))
      issues.addIssue({ code: 'custom', path: ['todos'], message: `the id "${item.id}" is used more than once` })
    if (item.id !== undefined)
      seen.add(item.id)
  }
})

/** The arguments of the `todowrite` tool. */
export type TodoWriteInput = z.input<typeof todoWriteInput>

/** The stored list; a value that is not a list of todos (a foreign write, an old format) reads as empty. */
export function readTodos(state: Pick<ToolContext['state'], 'get'>): TodoItem[] {
  const parsed = z.array(storedItem).safeParse(state.get(TODO_STATE_KEY))
  return parsed.success ? parsed.data : []
}

/** The list as the model sees it: a summary line, then one line per item with its status mark and id. */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0)
    return 'The todo list is empty.'
  const count = (wanted: TodoStatus) => todos.filter(item => item.status === wanted).length
  const mark: Record<TodoStatus, string> = { completed: '[x]', in_progress: '[>]', pending: '[ ]' }
  const lines = todos.map(item => `${mark[item.status]} ${item.id}. ${item.content.replace(LINE_BREAKS, ' ')}`)
  return [`Todos: ${count('completed')}/${todos.length} completed, ${count('in_progress')} in progress, ${count('pending')} pending`, ...lines].join('\n')
}

/** The `todowrite` tool: replace the model's todo list (kept in tool state). */
export const todoWrite: ToolDef<z.output<typeof todoWriteInput>> = tool({
  name: 'todowrite',
  description: 'Replace your todo list for the current task with the complete, updated list. '
    + 'Use it for work with several steps: add the steps, mark one in_progress when you start it and completed as soon as it is done. '
    + 'At most one item may be in_progress. Keep ids of existing items so they stay stable.',
  input: todoWriteInput,
  execute({ todos }, ctx) {
    const before = readTodos(ctx.state)
    const taken = new Set(todos.flatMap(item => item.id ?? []))
    // An item sent without its id keeps the one it had, matched by content; a new item never reuses a dropped item's id.
    const previous = new Map(before.map(item => [item.content, item.id]))
    const retired = new Set(before.map(item => item.id))
    let next = 1
    const idFor = (content: string) => {
      const earlier = previous.get(content)
      if (earlier !== undefined && !taken.has(earlier)) {
        taken.add(earlier)
        return earlier
      }
      while (taken.has(String(next)) || retired.has(String(next)))
        next++
      taken.add(String(next))
      return String(next)
    }
    const list: TodoItem[] = todos.map(item => ({ id: item.id ?? idFor(item.content), content: item.content, status: item.status }))
    ctx.state.set(TODO_STATE_KEY, list)
    return renderTodos(list)
  },
})

/** The `todoread` tool: the model's current todo list. */
export const todoRead: ToolDef<Record<string, never>> = tool({
  name: 'todoread',
  description: 'Show your current todo list with each item\'s id and status.',
  input: z.object({}),
  isConcurrencySafe: true,
  execute: (_input, ctx) => renderTodos(readTodos(ctx.state)),
})

/** Both todo tools, keyed by name; spread into `AgentOptions.tools`. */
export const todoTools = { todowrite: todoWrite, todoread: todoRead }
