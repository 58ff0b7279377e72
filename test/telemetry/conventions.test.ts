import * as semconv from '@opentelemetry/semantic-conventions/incubating'
import { describe, expect, it } from 'vitest'
import { ERROR_TYPE, GEN_AI, METRICS, OPERATION, TOKEN_TYPE } from '../../src/telemetry/conventions'

// zidane writes the GenAI names out (the package is not loaded at run time);
// each must be the name the semantic-conventions package gives.

/** `usageCacheReadInputTokens` → `ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS`. */
const constantName = (key: string) => `ATTR_GEN_AI_${key.replace(/[A-Z]/g, letter => `_${letter}`).toUpperCase()}`

describe('the names zidane emits are the conventions\' names', () => {
  it.each(Object.entries(GEN_AI))('%s', (key, name) => {
    expect(semconv[constantName(key) as keyof typeof semconv], constantName(key)).toBe(name)
  })

  it('error.type, the operations, the token types and the metrics', () => {
    expect(ERROR_TYPE).toBe(semconv.ATTR_ERROR_TYPE)
    expect(OPERATION).toEqual({
      invokeAgent: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    })
    expect(TOKEN_TYPE).toEqual({ input: semconv.GEN_AI_TOKEN_TYPE_VALUE_INPUT, output: semconv.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT })
    expect(METRICS.tokenUsage.name).toBe(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE)
    expect(METRICS.operationDuration.name).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION)
    expect(METRICS.timeToFirstChunk.name).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK)
  })
})
