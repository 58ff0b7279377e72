import type { HostKnobs } from '../../../../src/knobs/host-knobs'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'
import { echoTool } from '../../../support/helpers'

export const hostScenarios: SliceScenarios<HostKnobs> = {
  extensions: {
    value: { acme: { region: 'eu' } },
    // zidane never reads them; a host tool does, through its context.
    outcome: async (behavior) => {
      let seen: unknown
      const probe = echoTool('probe', { execute: (_input, ctx) => {
        seen = ctx.behavior.extensions
        return 'ok'
      } })
      const provider = scriptedProvider([{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'done' }])
      await createAgent({ provider, tools: { probe }, behavior }).run({ prompt: 'go' })
      return seen
    },
    unset: undefined,
    set: { acme: { region: 'eu' } },
  },
}
