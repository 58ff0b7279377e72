import type { SessionContentBlock, SessionMessage } from '../../src/core/content'

/** Small builders and a strict pairing checker shared by the pairing tests. */

export const text = (value: string): SessionContentBlock => ({ type: 'text', text: value })
export const call = (id: string, name = 'echo'): SessionContentBlock => ({ type: 'tool_call', id, name, input: {} })
export const result = (callId: string, output = `out-${callId}`): SessionContentBlock => ({ type: 'tool_result', callId, output })
export const user = (...content: SessionContentBlock[]): SessionMessage => ({ role: 'user', content })
export const assistant = (...content: SessionContentBlock[]): SessionMessage => ({ role: 'assistant', content })

export function isToolBlock(block: SessionContentBlock): boolean {
  return block.type === 'tool_call' || block.type === 'tool_result'
}

/**
 * Every way a conversation can break the pairing invariant: calls only in
 * assistant messages with ids unique across the conversation, each answered by
 * exactly one result in the very next message, which is a user message; results
 * only in user messages, each answering a call of the message right before.
 */
export function pairingViolations(messages: readonly SessionMessage[]): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  messages.forEach((message, index) => {
    const next = messages[index + 1]
    const previous = messages[index - 1]
    const nextResults = next?.role === 'user' ? next.content.flatMap(block => block.type === 'tool_result' ? [block.callId] : []) : []
    const previousCalls = previous?.role === 'assistant' ? previous.content.flatMap(block => block.type === 'tool_call' ? [block.id] : []) : []
    for (const block of message.content) {
      if (block.type === 'tool_call') {
        if (message.role !== 'assistant')
          problems.push(`call ${block.id} in a user message at ${index}`)
        if (seen.has(block.id))
          problems.push(`call id ${block.id} reused at ${index}`)
        seen.add(block.id)
        const count = nextResults.filter(id => id === block.id).length
        if (count !== 1)
          problems.push(`call ${block.id} at ${index} has ${count} results`)
      }
      if (block.type === 'tool_result') {
        if (message.role !== 'user')
          problems.push(`result ${block.callId} in an assistant message at ${index}`)
        else if (!previousCalls.includes(block.callId))
          problems.push(`result ${block.callId} at ${index} answers no call of the previous message`)
      }
    }
  })
  return problems
}

/** Deep-freeze messages so any mutation by the code under test throws. */
export function freezeMessages(messages: readonly SessionMessage[]): readonly SessionMessage[] {
  for (const message of messages) {
    for (const block of message.content)
      Object.freeze(block)
    Object.freeze(message.content)
    Object.freeze(message)
  }
  return Object.freeze(messages)
}
