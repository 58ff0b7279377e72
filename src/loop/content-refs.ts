import type { ResolveContentRef, SessionContentBlock, SessionMessage, ToolResultContent } from '../core/content'
import { mergeObjects } from '../core/merge-objects'
import { AgentContentRefError } from '../errors'

/**
 * What a run remembers of its resolved references: each message's resolved
 * form (by identity), so a message is resolved once per run and the same
 * object goes out on every later request, and each reference's payload, so
 * the host's resolver is called once per reference.
 */
export interface ContentRefCache {
  readonly messages: WeakMap<SessionMessage, SessionMessage>
  readonly payloads: Map<string, Promise<string>>
}

/** A fresh cache, one per run. */
export function createContentRefCache(): ContentRefCache {
  return { messages: new WeakMap(), payloads: new Map() }
}

interface RefBlock { type: 'image' | 'document', ref: string, mediaType: string, name?: string, encoding?: 'text' | 'base64' }

function isRef(block: { type: string, ref?: unknown }): block is RefBlock {
  return (block.type === 'image' || block.type === 'document') && typeof block.ref === 'string'
}

function hasRefs(message: SessionMessage): boolean {
  for (const block of message.content) {
    if (isRef(block))
      return true
    if (block.type === 'tool_result' && Array.isArray(block.output) && block.output.some(isRef))
      return true
  }
  return false
}

async function payload(block: RefBlock, resolve: ResolveContentRef, cache: ContentRefCache): Promise<string> {
  const key = `${block.type}\u0000${block.mediaType}\u0000${block.encoding ?? ''}\u0000${block.ref}`
  let pending = cache.payloads.get(key)
  if (!pending) {
    pending = (async () => {
      let resolved: { data: string } | undefined
      try {
        resolved = await resolve({ type: block.type, ref: block.ref, mediaType: block.mediaType, ...(block.name === undefined ? {} : { name: block.name }), ...(block.encoding === undefined ? {} : { encoding: block.encoding }) })
      }
      catch (error) {
        throw new AgentContentRefError(`resolveContentRef failed for ${block.type} ${block.ref}: ${error instanceof Error ? error.message : String(error)}`, block.ref, { cause: error })
      }
      if (typeof resolved?.data !== 'string')
        throw new AgentContentRefError(`resolveContentRef returned no string data for ${block.type} ${block.ref}`, block.ref)
      return resolved.data
    })()
    cache.payloads.set(key, pending)
    // A failed resolution is not remembered: the next run (or retry) asks again.
    pending.catch(() => cache.payloads.delete(key))
  }
  return pending
}

async function inline<T extends SessionContentBlock | ToolResultContent>(block: T, resolve: ResolveContentRef, cache: ContentRefCache): Promise<T> {
  if (!isRef(block))
    return block
  const { ref: _ref, ...rest } = block
  return mergeObjects(rest, { data: await payload(block, resolve, cache) }) as unknown as T
}

/**
 * The messages with every `ref` block (top-level, or in a tool result)
 * replaced by an inline block holding what the host's resolver returned.
 * Messages without references come through as the same objects. A failing
 * resolver fails the request with `AgentContentRefError`.
 */
export async function resolveContentRefs(messages: readonly SessionMessage[], resolve: ResolveContentRef, cache: ContentRefCache): Promise<readonly SessionMessage[]> {
  let out: SessionMessage[] | undefined
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    let resolved = cache.messages.get(message)
    if (!resolved) {
      resolved = hasRefs(message)
        ? {
            role: message.role,
            content: await Promise.all(message.content.map(async block =>
              block.type === 'tool_result' && Array.isArray(block.output) && block.output.some(isRef)
                ? mergeObjects(block, { output: await Promise.all(block.output.map(part => inline(part, resolve, cache))) })
                : inline(block, resolve, cache))),
          }
        : message
      cache.messages.set(message, resolved)
    }
    if (resolved !== message) {
      out ??= messages.slice()
      out[i] = resolved
    }
  }
  return out ?? messages
}
