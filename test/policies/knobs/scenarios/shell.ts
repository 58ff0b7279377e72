import type { AgentBehavior, StreamOptions } from '../../../../src'
import type { ShellKnobs } from '../../../../src/knobs/shell-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { scriptedProvider } from '../../../../src/testing'
import { shell } from '../../../../src/tools'

/** The text of the last tool result the model was sent. */
export function lastToolResult(request: StreamOptions): string {
  for (const message of [...request.messages].reverse()) {
    for (const block of message.content) {
      if (block.type === 'tool_result')
        return typeof block.output === 'string' ? block.output : JSON.stringify(block.output)
    }
  }
  return ''
}

/** Run the shell tool through an agent in a fresh directory; `tasks` turns on background mode. */
async function shellRun(behavior: AgentBehavior, turns: ScriptedTurn[], tasks = true) {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-knobs-shell-'))
  const tasksDir = join(dir, 'tasks')
  const provider = scriptedProvider([...turns, { text: 'done' }])
  const stalls: string[] = []
  const agent = createAgent({
    provider,
    tools: { shell },
    execution: createProcessContext({ cwd: dir }),
    behavior: { ...(tasks ? { tasksDir } : {}), ...behavior },
    hooks: { 'background:stall': info => void stalls.push(info.taskId) },
  })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  return { provider, tasksDir, stalls }
}

const toolNames = async (behavior: AgentBehavior, tasks = true) => (await shellRun(behavior, [], tasks)).provider.requests[0].tools.map(t => t.name)

const TASK_ID = /task (\S+?)[ .]/

/** Start a background task, then wait for it with `wait_task` (the id is read from the first result). */
function backgroundThenWait(command: string, waitMs: number): ScriptedTurn[] {
  return [
    { toolCalls: [{ name: 'shell', input: { command, run_in_background: true } }] },
    { respond: request => ({ toolCalls: [{ name: 'wait_task', input: { task_id: TASK_ID.exec(lastToolResult(request))![1], timeout: waitMs } }] }) },
  ]
}

export const shellScenarios: SliceScenarios<ShellKnobs> = {
  tasksDir: {
    value: '/placeholder',
    outcome: async behavior => toolNames(behavior.tasksDir ? { tasksDir: mkdtempSync(join(tmpdir(), 'zidane-knobs-tasks-')) } : {}, false),
    unset: ['shell'],
    set: ['shell', 'wait_task', 'list_tasks', 'kill_task'],
  },
  disableBackgroundTasks: {
    value: true,
    outcome: behavior => toolNames(behavior),
    unset: ['shell', 'wait_task', 'list_tasks', 'kill_task'],
    set: ['shell'],
  },
  backgroundOutputCap: {
    value: 8,
    outcome: async (behavior) => {
      const { tasksDir } = await shellRun(behavior, backgroundThenWait('printf 1234567890abcdef', 8_000))
      const [log] = readdirSync(tasksDir)
      return readFileSync(join(tasksDir, log), 'utf8').startsWith('1234567890abcdef')
    },
    unset: true,
    set: false,
  },
  backgroundStallWatchdogMs: {
    value: 50,
    outcome: async behavior => (await shellRun(behavior, backgroundThenWait('sleep 0.6', 8_000))).stalls.length > 0,
    unset: false,
    set: true,
  },
  shellLongTimeoutMs: {
    value: 1_000,
    outcome: async (behavior) => {
      const { provider } = await shellRun(behavior, [{ toolCalls: [{ name: 'shell', input: { command: 'echo ran', timeout: 5_000 } }] }])
      return lastToolResult(provider.requests[1]).startsWith('ran')
    },
    unset: true,
    set: false,
  },
}
