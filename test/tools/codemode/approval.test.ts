import type { ToolDef } from '../../../src'
import { describe, expect, it } from 'vitest'
import { runCodemode } from './helpers'

/** `deploy { env }`: a tool that waits for a host's approval, counting the deployments it really made. */
function deployTool(): { def: ToolDef, deployed: string[] } {
  const deployed: string[] = []
  return {
    deployed,
    def: {
      spec: { name: 'deploy', description: 'Deploy to an environment.', inputSchema: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] } },
      needsApproval: true,
      execute: (input: { env: string }) => {
        deployed.push(input.env)
        return `deployed ${input.env}`
      },
    },
  }
}

const SCRIPT = [
  'const out = []',
  'out.push(await tools.deploy({ env: "staging" }))',
  'try { await tools.deploy({ env: "prod" }) } catch (e) { out.push([e.tool, e.blocked, e.message]) }',
  'return out',
].join('\n')

describe('approval inside a codemode script', () => {
  it('asks the host about each nested call: an approved one runs, a denied one rejects in the script with the reason', async () => {
    const deploy = deployTool()
    const asked: [string, string | undefined, number | undefined][] = []
    const { text, stats } = await runCodemode(SCRIPT, {
      tools: { deploy: deploy.def },
      hooks: {
        'tool:approval': (ctx) => {
          const env = (ctx.input as { env: string }).env
          asked.push([env, ctx.parentToolCallId, ctx.scriptLine])
          if (env === 'staging')
            ctx.approve({ reason: 'staging is fine' })
          else
            ctx.deny({ reason: 'not on a Friday' })
        },
      },
    })
    expect(stats.stopReason).toBe('completed')
    expect(deploy.deployed).toEqual(['staging'])
    expect(asked).toEqual([['staging', 'call_c', 2], ['prod', 'call_c', 3]])
    const returned = JSON.parse(text.replace('Returned: ', '')) as unknown[]
    expect(returned[0]).toBe('deployed staging')
    expect(returned[1]).toEqual(['deploy', true, expect.stringContaining('not on a Friday')])
  })

  it('refuses a nested call nobody can approve instead of running it (a script cannot be suspended)', async () => {
    const deploy = deployTool()
    const { text, stats } = await runCodemode(SCRIPT, { tools: { deploy: deploy.def } })
    expect(deploy.deployed).toEqual([])
    expect(stats.stopReason).toBe('completed')
    expect(text).toContain('cannot be suspended')
  })
})
