import type { AgentStreamEvent, ToolDef } from '../../src'
import type { ScriptedProvider } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { ToolApprovalError } from '../../src/errors'
import { basic, basicApprovals } from '../../src/presets'
import { createSession } from '../../src/session'
import { scriptedProvider, testEffects } from '../../src/testing'
import { createSpawnTool } from '../../src/tools/spawn'

// Tool approval through the public API: the request on the hook and on the stream, approve and deny with a
// reason, the function form, suspension with no listener, continuation, abort while waiting, a parallel batch
// with one pending call, and a nested call.

/** A tool that records each input it runs with. */
function recordingTool(name: string, ran: string[], options: Partial<ToolDef> = {}): ToolDef {
  return {
    spec: { name, description: name, inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
    execute: (input: { command?: string }) => {
      ran.push(`${name}:${input.command ?? ''}`)
      return `${name} ran ${input.command ?? ''}`
    },
    ...options,
  }
}

/** The tool results of the provider's last request (its last message), by call id. */
function lastResults(provider: ScriptedProvider): Record<string, { output: string, isError: boolean }> {
  const results: Record<string, { output: string, isError: boolean }> = {}
  const last = provider.requests.at(-1)!.messages.at(-1)!
  for (const block of last.content as { type: string, callId?: string, output?: unknown, isError?: boolean }[]) {
    if (block.type === 'tool_result')
      results[block.callId!] = { output: String(block.output), isError: block.isError === true }
  }
  return results
}

function shellTurn(id: string, command: string) {
  return { toolCalls: [{ id, name: 'shell', input: { command } }] }
}

describe('tool approval in process', () => {
  it('the hook approves with a reason: the call runs through the pipeline and the model reads its result', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'ls'), { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', ran, { needsApproval: true }) } })
    const asked: unknown[] = []
    const after: string[] = []
    agent.hooks.hook('tool:approval', (ctx) => {
      asked.push({ callId: ctx.callId, name: ctx.name, input: ctx.input, decide: typeof ctx.decide })
      ctx.approve({ reason: 'read-only' })
    })
    const metadata: unknown[] = []
    agent.hooks.hook('tool:after', (ctx) => {
      after.push(String(ctx.result))
      metadata.push(ctx.metadata)
    })
    const stats = await agent.run({ prompt: 'list' })
    // The decision is recorded on the result for audits (metadata: the model never reads it).
    expect(metadata).toEqual([{ approval: { approved: true, reason: 'read-only' } }])
    expect(stats.stopReason).toBe('completed')
    // The context carries ctx.decide, as every hook context does.
    expect(asked).toEqual([{ callId: 'c1', name: 'shell', input: { command: 'ls' }, decide: 'function' }])
    expect(ran).toEqual(['shell:ls'])
    expect(after).toEqual(['shell ran ls'])
    expect(lastResults(provider).c1).toEqual({ output: 'shell ran ls', isError: false })
  })

  it('a denial reaches the model as a blocked result carrying the reason, and the tool never runs', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'rm -rf /'), { text: 'ok' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', ran, { needsApproval: true }) } })
    agent.hooks.hook('tool:approval', (ctx) => {
      ctx.deny({ reason: 'never delete the root' })
    })
    const metadata: unknown[] = []
    agent.hooks.hook('tool:after', ctx => void metadata.push(ctx.metadata))
    await agent.run({ prompt: 'clean up' })
    expect(metadata).toEqual([{ approval: { approved: false, reason: 'never delete the root' } }])
    expect(ran).toEqual([])
    expect(lastResults(provider).c1).toEqual({ output: 'Blocked: the call was denied: never delete the root', isError: true })
  })

  it('the function form asks only for the inputs it names, and gets the checked input and the call', async () => {
    const ran: string[] = []
    const seen: unknown[] = []
    const shell = recordingTool('shell', ran, {
      needsApproval: (input: { command: string }, call) => {
        seen.push({ command: input.command, name: call.name, callId: call.callId })
        return input.command.startsWith('rm')
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ id: 'a', name: 'shell', input: { command: 'ls' } }, { id: 'b', name: 'shell', input: { command: 'rm x' } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell } })
    const asked: string[] = []
    agent.hooks.hook('tool:approval', (ctx) => {
      asked.push(ctx.callId)
      ctx.deny()
    })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual([{ command: 'ls', name: 'shell', callId: 'a' }, { command: 'rm x', name: 'shell', callId: 'b' }])
    expect(asked).toEqual(['b'])
    expect(ran).toEqual(['shell:ls'])
    expect(lastResults(provider).b).toEqual({ output: 'Blocked: the call was denied.', isError: true })
  })

  it('tool() takes needsApproval as a function of the parsed input', async () => {
    const ran: string[] = []
    const deploy = tool({
      name: 'deploy',
      description: 'deploy',
      input: z.object({ tag: z.string(), env: z.enum(['staging', 'production']) }),
      needsApproval: input => input.env === 'production',
      execute: ({ tag, env }) => {
        ran.push(`${tag}@${env}`)
        return 'ok'
      },
    })
    const provider = scriptedProvider([{ toolCalls: [{ id: 's', name: 'deploy', input: { tag: 'v1', env: 'staging' } }, { id: 'p', name: 'deploy', input: { tag: 'v1', env: 'production' } }] }])
    const stats = await createAgent({ provider, tools: { deploy } }).run({ prompt: 'ship' })
    expect(stats.stopReason).toBe('suspended')
    expect(stats.pendingApprovals!.map(approval => approval.callId)).toEqual(['p'])
    expect(ran).toEqual(['v1@staging'])
  })

  it('the host option gates a tool it does not own, and false lifts a tool\'s own flag', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([{ toolCalls: [{ id: 'a', name: 'builtin', input: { command: 'x' } }, { id: 'b', name: 'own', input: { command: 'y' } }] }, { text: 'done' }])
    const agent = createAgent({
      provider,
      tools: { builtin: recordingTool('builtin', ran), own: recordingTool('own', ran, { needsApproval: true }) },
      needsApproval: { builtin: input => (input as { command: string }).command === 'x', own: false },
    })
    const asked: string[] = []
    agent.hooks.hook('tool:approval', (ctx) => {
      asked.push(ctx.name)
      ctx.approve()
    })
    await agent.run({ prompt: 'go' })
    expect(asked).toEqual(['builtin'])
    expect(ran).toEqual(['builtin:x', 'own:y'])
  })

  it('a needsApproval function that throws refuses the call', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'ls'), { text: 'done' }])
    const shell = recordingTool('shell', ran, { needsApproval: () => {
      throw new Error('policy store down')
    } })
    await createAgent({ provider, tools: { shell } }).run({ prompt: 'go' })
    expect(ran).toEqual([])
    expect(lastResults(provider).c1.output).toBe('Blocked: the needsApproval check of shell failed (policy store down)')
  })

  it('the stream shows the request; agent.approve() decides it later while the run waits', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'make'), { text: 'built' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', ran, { needsApproval: true }) } })
    const stream = agent.stream({ prompt: 'build' })
    const types: string[] = []
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'tool-approval') {
        expect(event).toMatchObject({ callId: 'c1', name: 'shell', input: { command: 'make' }, depth: 0 })
        expect(agent.pendingApprovals()).toMatchObject([{ callId: 'c1', name: 'shell' }])
        // Decided after a pause, from outside the event: the run waited.
        setTimeout(() => void agent.approve('c1', { reason: 'ok' }), 20)
      }
    }
    expect((await stream.result).stopReason).toBe('completed')
    expect(ran).toEqual(['shell:make'])
    expect(types.indexOf('tool-approval')).toBeGreaterThan(types.indexOf('tool-call'))
    expect(types.indexOf('tool-result')).toBeGreaterThan(types.indexOf('tool-approval'))
  })

  it('the stream event\'s own deny() carries its reason to the model', async () => {
    const provider = scriptedProvider([shellTurn('c1', 'curl evil'), { text: 'ok' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', [], { needsApproval: true }) } })
    for await (const event of agent.stream({ prompt: 'go' })) {
      if (event.type === 'tool-approval')
        event.deny({ reason: 'no network' })
    }
    expect(lastResults(provider).c1.output).toBe('Blocked: the call was denied: no network')
  })

  it('agent.abort() ends the wait: the run returns aborted and the tool never runs', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'deploy'), { text: 'never' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', ran, { needsApproval: true }) } })
    agent.hooks.hook('tool:approval', () => {
      setTimeout(() => agent.abort(), 20)
    })
    const stats = await agent.run({ prompt: 'deploy' })
    expect(stats.stopReason).toBe('aborted')
    expect(ran).toEqual([])
    expect(provider.requests).toHaveLength(1)
  })

  it('the decision goes through the effects seam: a journal records it, and a replay gets it back without asking', async () => {
    const steps: { name: string, value: unknown }[] = []
    const recording = createAgent({
      provider: scriptedProvider([shellTurn('c1', 'ls'), { text: 'ok' }]),
      tools: { shell: recordingTool('shell', [], { needsApproval: true }) },
      effects: { ...testEffects(), step: async (name, exec) => {
        const value = await exec()
        steps.push({ name, value })
        return value
      } },
    })
    recording.hooks.hook('tool:approval', ctx => ctx.deny({ reason: 'recorded' }))
    await recording.run({ prompt: 'go' })
    expect(steps).toEqual([{ name: 'approval:decision', value: { kind: 'denied', reason: 'recorded' } }])

    const ran: string[] = []
    const provider = scriptedProvider([shellTurn('c1', 'ls'), { text: 'ok' }])
    const replay = createAgent({
      provider,
      tools: { shell: recordingTool('shell', ran, { needsApproval: true }) },
      effects: { ...testEffects(), step: async () => steps.shift()!.value as never },
    })
    const asked: string[] = []
    replay.hooks.hook('tool:approval', (ctx) => {
      asked.push(ctx.callId)
      ctx.approve()
    })
    await replay.run({ prompt: 'go' })
    expect(asked).toEqual([])
    expect(ran).toEqual([])
    expect(lastResults(provider).c1.output).toBe('Blocked: the call was denied: recorded')
  })

  it('a hook that throws denies the call', async () => {
    const provider = scriptedProvider([shellTurn('c1', 'ls'), { text: 'ok' }])
    const agent = createAgent({ provider, tools: { shell: recordingTool('shell', [], { needsApproval: true }) } })
    agent.hooks.hook('tool:approval', () => {
      throw new Error('ui gone')
    })
    await agent.run({ prompt: 'go' })
    expect(lastResults(provider).c1.output).toBe('Blocked: the call was denied: a tool:approval hook failed (ui gone)')
  })

  it('approve() of a call nobody waits on is a ToolApprovalError', async () => {
    const agent = createAgent({ provider: scriptedProvider([]) })
    await expect(agent.approve('nope')).rejects.toBeInstanceOf(ToolApprovalError)
    await expect(agent.deny('nope')).rejects.toMatchObject({ callId: 'nope', problem: 'not-pending' })
  })
})

describe('the basic preset', () => {
  it('basicApprovals gates shell and the tools that change files, not the reading tools', async () => {
    const provider = scriptedProvider([{ toolCalls: [
      { id: 'w', name: 'write_file', input: { path: 'a.txt', content: 'x' } },
      { id: 'e', name: 'edit', input: { path: 'a.txt', old_string: 'x', new_string: 'y' } },
      { id: 'm', name: 'multi_edit', input: { path: 'a.txt', edits: [{ old_string: 'x', new_string: 'y' }] } },
      { id: 's', name: 'shell', input: { command: 'echo hi' } },
      { id: 'r', name: 'read_file', input: { path: 'a.txt' } },
      { id: 'l', name: 'list_files', input: {} },
      { id: 'g', name: 'glob', input: { pattern: '*' } },
      { id: 'q', name: 'grep', input: { pattern: 'x' } },
    ] }, { text: 'done' }])
    const agent = createAgent({ ...basic, needsApproval: basicApprovals, provider })
    const asked: string[] = []
    agent.hooks.hook('tool:approval', (ctx) => {
      asked.push(ctx.name)
      ctx.deny({ reason: 'dry run' })
    })
    await agent.run({ prompt: 'go' })
    expect(asked.sort()).toEqual(['edit', 'multi_edit', 'shell', 'write_file'])
    const results = lastResults(provider)
    expect(results.w.output).toBe('Blocked: the call was denied: dry run')
    expect(results.r.output).not.toMatch(/denied/)
  })
})

describe('nested calls', () => {
  const router: ToolDef = {
    spec: { name: 'router', description: 'calls shell', inputSchema: { type: 'object' } },
    execute: async (_input, ctx) => {
      const inner = await ctx.callTool('shell', { command: 'rm -rf dist' })
      return `${inner.isError ? 'refused' : 'ran'}: ${String(inner.output)}`
    },
  }

  it('a nested call that needs approval with no listener is refused with a clear error; the run is not suspended', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([{ toolCalls: [{ id: 'r1', name: 'router', input: {} }] }, { text: 'done' }])
    const stats = await createAgent({ provider, tools: { router, shell: recordingTool('shell', ran, { needsApproval: true }) } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([])
    expect(lastResults(provider).r1.output).toMatch(/^refused: Blocked: shell needs approval, and no decision was given while the run waited; it was made by another tool/)
  })

  it('a nested call waits for an in-process decision like a model\'s call, and the hook names its caller', async () => {
    const ran: string[] = []
    const provider = scriptedProvider([{ toolCalls: [{ id: 'r1', name: 'router', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { router, shell: recordingTool('shell', ran, { needsApproval: true }) } })
    const callers: (string | undefined)[] = []
    agent.hooks.hook('tool:approval', (ctx) => {
      callers.push(ctx.parentToolCallId)
      setTimeout(() => ctx.approve(), 10)
    })
    await agent.run({ prompt: 'go' })
    expect(callers).toEqual(['r1'])
    expect(ran).toEqual(['shell:rm -rf dist'])
    expect(lastResults(provider).r1.output).toBe('ran: shell ran rm -rf dist')
  })
})

describe('subagents', () => {
  it('a subagent\'s call that needs approval is refused, not left waiting, even while the parent listens', async () => {
    const ran: string[] = []
    const childProvider = scriptedProvider([shellTurn('k1', 'rm -rf /tmp/x'), { text: 'child gave up' }], { name: 'kid' })
    const provider = scriptedProvider([{ toolCalls: [{ id: 'sp', name: 'spawn', input: { task: 'clean' } }] }, { text: 'done' }])
    const shell = recordingTool('shell', ran, { needsApproval: true })
    const agent = createAgent({ provider, tools: { shell, spawn: createSpawnTool({ child: { provider: childProvider, tools: { shell } } }) } })
    agent.hooks.hook('tool:approval', ctx => ctx.approve())
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([])
    const childResult = childProvider.requests.at(-1)!.messages.at(-1)!.content[0] as { output: string }
    expect(childResult.output).toMatch(/^Blocked: shell needs approval, .* it was made in a subagent/)
  })
})

describe('suspension', () => {
  it('with no listener the run suspends at once; the other calls of the batch keep their results; approve() and run() continue it', async () => {
    const ran: string[] = []
    const session = await createSession()
    const tools = { shell: recordingTool('shell', ran, { needsApproval: true }), read: recordingTool('read', ran) }
    const batch = { toolCalls: [{ id: 'r1', name: 'read', input: { command: 'a' } }, { id: 's1', name: 'shell', input: { command: 'rm build' } }, { id: 'r2', name: 'read', input: { command: 'b' } }] }
    const first = scriptedProvider([batch, { text: 'never asked' }])
    const stats = await createAgent({ provider: first, tools, session }).run({ prompt: 'tidy' })
    expect(stats).toMatchObject({ stopReason: 'suspended', suspended: true })
    expect(stats.pendingApprovals).toMatchObject([{ callId: 's1', name: 'shell', input: { command: 'rm build' } }])
    expect(ran).toEqual(['read:a', 'read:b'])
    expect(first.requests).toHaveLength(1)
    // The session is paired: the pending call has a placeholder result next to the others.
    const results = session.turns.at(-1)!.content as { type: string, callId: string, metadata?: unknown }[]
    expect(results.map(block => block.callId)).toEqual(['r1', 's1', 'r2'])
    expect(results[1].metadata).toEqual({ approval: 'pending' })
    expect(session.runs.at(-1)!.state!.approvals).toHaveLength(1)

    const second = scriptedProvider([{ text: 'tidied' }])
    const agent = createAgent({ provider: second, tools, session })
    expect(agent.pendingApprovals().map(approval => approval.callId)).toEqual(['s1'])
    await agent.approve('s1', { reason: 'fine' })
    const continued = await agent.run()
    expect(continued.stopReason).toBe('completed')
    expect(ran).toEqual(['read:a', 'read:b', 'shell:rm build'])
    // The model sees the three results, the approved one in the placeholder's place.
    expect(lastResults(second)).toEqual({
      r1: { output: 'read ran a', isError: false },
      s1: { output: 'shell ran rm build', isError: false },
      r2: { output: 'read ran b', isError: false },
    })
    expect(second.requests[0].messages.filter(message => message.role === 'user')).toHaveLength(2)
    expect(agent.pendingApprovals()).toEqual([])
  })

  it('a listener may suspend(): the run stops and a later deny() reaches the model with its reason', async () => {
    const ran: string[] = []
    const session = await createSession()
    const tools = { shell: recordingTool('shell', ran, { needsApproval: true }) }
    const agent = createAgent({ provider: scriptedProvider([shellTurn('c1', 'publish')]), tools, session })
    const off = agent.hooks.hook('tool:approval', ctx => ctx.suspend())
    expect((await agent.run({ prompt: 'ship it' })).stopReason).toBe('suspended')
    off()
    await agent.deny('c1', { reason: 'not on a Friday' })
    await expect(agent.approve('c1')).rejects.toBeInstanceOf(ToolApprovalError)
    const next = scriptedProvider([{ text: 'understood' }])
    expect((await createAgent({ provider: next, tools, session }).run()).stopReason).toBe('completed')
    expect(ran).toEqual([])
    expect(lastResults(next).c1).toEqual({ output: 'Blocked: the call was denied: not on a Friday', isError: true })
  })

  it('a continuation with no decision and no listener stays suspended without calling the model', async () => {
    const session = await createSession()
    const tools = { shell: recordingTool('shell', [], { needsApproval: true }) }
    await createAgent({ provider: scriptedProvider([shellTurn('c1', 'x')]), tools, session }).run({ prompt: 'go' })
    const again = scriptedProvider([{ text: 'never' }])
    const stats = await createAgent({ provider: again, tools, session }).run()
    expect(stats).toMatchObject({ stopReason: 'suspended', suspended: true, pendingApprovals: [{ callId: 'c1' }] })
    expect(again.requests).toHaveLength(0)
  })

  it('two pending calls: one decided on the record, the other still open; the stats list only the open one', async () => {
    const ran: string[] = []
    const session = await createSession()
    const tools = { shell: recordingTool('shell', ran, { needsApproval: true }) }
    const batch = { toolCalls: [{ id: 'a', name: 'shell', input: { command: 'one' } }, { id: 'b', name: 'shell', input: { command: 'two' } }] }
    const first = await createAgent({ provider: scriptedProvider([batch]), tools, session }).run({ prompt: 'go' })
    expect(first.pendingApprovals!.map(approval => approval.callId)).toEqual(['a', 'b'])
    const agent = createAgent({ provider: scriptedProvider([{ text: 'never' }]), tools, session })
    await agent.approve('a')
    expect(agent.pendingApprovals().map(approval => approval.callId)).toEqual(['b'])
    const again = await agent.run()
    expect(again).toMatchObject({ stopReason: 'suspended', pendingApprovals: [{ callId: 'b' }] })
    expect(ran).toEqual([])
    // The decision on 'a' was kept: deciding 'b' is enough to go on, and both are answered in call order.
    await agent.deny('b', { reason: 'only one' })
    const provider = scriptedProvider([{ text: 'done' }])
    await createAgent({ provider, tools, session }).run()
    expect(ran).toEqual(['shell:one'])
    expect(lastResults(provider)).toEqual({ a: { output: 'shell ran one', isError: false }, b: { output: 'Blocked: the call was denied: only one', isError: true } })
  })

  it('a continuation asks a listener again for an undecided call', async () => {
    const ran: string[] = []
    const session = await createSession()
    const tools = { shell: recordingTool('shell', ran, { needsApproval: true }) }
    await createAgent({ provider: scriptedProvider([shellTurn('c1', 'x')]), tools, session }).run({ prompt: 'go' })
    const next = scriptedProvider([{ text: 'done' }])
    const agent = createAgent({ provider: next, tools, session })
    const events: AgentStreamEvent['type'][] = []
    for await (const event of agent.stream()) {
      events.push(event.type)
      if (event.type === 'tool-approval')
        event.approve()
    }
    // The continuation announces the call again, then its approval request and its result.
    expect(events.filter(type => type.startsWith('tool-'))).toEqual(['tool-call', 'tool-approval', 'tool-result'])
    expect(ran).toEqual(['shell:x'])
    expect(lastResults(next).c1.output).toBe('shell ran x')
  })

  it('a new prompt instead of a decision leaves the placeholder as the call\'s answer, and the approval lapses', async () => {
    const session = await createSession()
    const tools = { shell: recordingTool('shell', [], { needsApproval: true }) }
    await createAgent({ provider: scriptedProvider([shellTurn('c1', 'x')]), tools, session }).run({ prompt: 'go' })
    const next = scriptedProvider([{ text: 'something else' }])
    const agent = createAgent({ provider: next, tools, session })
    await agent.run({ prompt: 'never mind, do something else' })
    const answered = next.requests[0].messages.at(-2)!.content as { type: string, output?: unknown }[]
    expect(String(answered[0].output)).toMatch(/^Not run yet: this call needs approval/)
    expect(agent.pendingApprovals()).toEqual([])
    await expect(agent.approve('c1')).rejects.toMatchObject({ problem: 'not-pending' })
  })
})
