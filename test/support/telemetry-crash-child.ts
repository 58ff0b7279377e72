/**
 * Child process for the resumed-trace test: runs an agent with telemetry on a
 * file-backed session and hangs in its tool until it is killed, leaving a run
 * record whose `traceContext` names its `invoke_agent` span. Prints
 * `hanging <traceparent>` once the tool runs. Arguments: <store dir> <session id>.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createAgent } from '../../src'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

const [dir, sessionId] = process.argv.slice(2)
const session = await loadSession(sessionId, { store: createFileStore({ dir }) })
const tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] })

const hang = {
  spec: { name: 'hang', description: 'Never returns', inputSchema: { type: 'object' } },
  execute: async () => {
    process.stdout.write(`hanging ${session.runs.at(-1)?.traceContext?.traceparent ?? 'none'}\n`)
    await new Promise(() => {})
    return 'unreachable'
  },
}
const agent = createAgent({
  provider: scriptedProvider([{ toolCalls: [{ name: 'hang', input: {} }] }]),
  tools: { hang },
  session,
  telemetry: { tracer: tracing.getTracer('child') },
})
await agent.run({ prompt: 'start the long job' })
