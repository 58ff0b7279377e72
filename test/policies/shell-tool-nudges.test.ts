import type { SessionTurn } from '../../src/core/content'
import type { ResultStep } from '../../src/testing'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { classifyShellCommand, shellToolNudges } from '../../src/policies/shell-tool-nudges'
import { createSession } from '../../src/session'
import { runPolicyScript, scriptedProvider } from '../../src/testing'
import { edit, readFile, shell } from '../../src/tools'

const OUTPUT = 'hello\n\n[exit code 0 · 3ms]'
const ran = (command: string, extra: Record<string, unknown> = {}): ResultStep => ({ phase: 'result', call: { name: 'shell', input: { command, ...extra } }, result: OUTPUT })
const resultOf = (step: { phase: string, result?: unknown }) => step.result

describe('classifyShellCommand', () => {
  it.each([
    ['cat src/a.ts', 'read'],
    ['cd src && head -n 20 a.ts', 'read'],
    ['sed -n \'1,40p\' a.ts', 'read'],
    ['grep -rn \'TODO\' src', 'search'],
    ['rg -n "needle" .', 'search'],
    ['cd pkg && git grep foo', 'search'],
    ['sed -i \'s/a/b/\' a.ts', 'edit'],
    ['sed -i.bak -e \'s/a/b/\' a.ts', 'edit'],
    ['perl -pi -e \'s/a/b/\' a.ts', 'edit'],
    ['python3 - <<\'EOF\'\nimport pathlib\np = pathlib.Path("a.ts")\np.write_text(p.read_text().replace("a", "b"))\nEOF', 'edit'],
    ['python -c "open(\'a.ts\', \'w\').write(\'x\')"', 'edit'],
    ['cat > a.ts <<EOF\nexport {}\nEOF', 'edit'],
    ['cat <<\'EOF\' > a.ts\nexport {}\nEOF', 'edit'],
    ['tee a.ts <<EOF\nx\nEOF', 'edit'],
  ])('%s -> %s', (command, kind) => {
    expect(classifyShellCommand(command)).toBe(kind)
  })

  it.each(['npm test', 'cat a.ts | grep x', 'grep x a.ts > out.txt', 'sed -n 1p a.ts && npm test', 'python3 script.py', 'ls -la', 'git status', 'sed \'s/a/b/\' a.ts'])('not covered: %s', (command) => {
    expect(classifyShellCommand(command)).toBeUndefined()
  })
})

describe('shell-tool-nudges', () => {
  it('is off unless set', async () => {
    for (const behavior of [{}, { shellToolNudges: false }])
      expect((await runPolicyScript(shellToolNudges, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('appends one line pointing to the advertised tool, keeping the result and its error flag', async () => {
    const { steps } = await runPolicyScript(shellToolNudges, {
      behavior: { shellToolNudges: true },
      tools: ['shell', 'read_file', 'grep', 'edit', 'multi_edit'],
      steps: [ran('cat a.ts'), ran('grep -rn x src'), { ...ran('sed -i s/a/b/ a.ts'), isError: true }],
    })
    expect(resultOf(steps[0])).toBe(`${OUTPUT}\n[tip: \`read_file\` reads files with line numbers and paging; prefer it to shell for plain file reads.]`)
    expect(resultOf(steps[1])).toBe(`${OUTPUT}\n[tip: \`grep\` searches file contents and reports paths and line numbers; prefer it to shell for content searches.]`)
    expect(steps[2]).toMatchObject({ isError: true, result: `${OUTPUT}\n[tip: \`edit\` / \`multi_edit\` changes files from exact text and checks the result; prefer it to scripted edits through shell.]` })
  })

  it('says nothing when the dedicated tool is not advertised, for other tools, other commands and background runs', async () => {
    const { steps } = await runPolicyScript(shellToolNudges, {
      behavior: { shellToolNudges: true },
      tools: ['shell', 'read_file'],
      steps: [ran('grep -rn x src'), ran('npm test'), ran('cat a.ts', { run_in_background: true }), { phase: 'result', call: { name: 'other', input: { command: 'cat a.ts' } }, result: OUTPUT }],
    })
    expect(steps.map(resultOf)).toEqual([OUTPUT, OUTPUT, OUTPUT, OUTPUT])
  })

  it('shows each kind at most maxPerKind times, counting the pointers earlier runs left in the session', async () => {
    const tools = ['shell', 'read_file', 'grep']
    const pointed = (step: unknown) => String(resultOf(step as never)).includes('[tip:')
    const fresh = await runPolicyScript(shellToolNudges, { behavior: { shellToolNudges: { maxPerKind: 2 } }, tools, steps: [ran('cat a'), ran('cat b'), ran('cat c'), ran('grep x a')] })
    expect(fresh.steps.map(pointed)).toEqual([true, true, false, true])

    const session = await createSession()
    const earlier: SessionTurn = {
      id: 't1',
      role: 'user',
      createdAt: 0,
      content: [{ type: 'tool_result', callId: 'c', output: String(resultOf(fresh.steps[0] as never)) }],
    }
    await session.appendTurns([earlier])
    const later = await runPolicyScript(shellToolNudges, { behavior: { shellToolNudges: { maxPerKind: 2 } }, tools, session, steps: [ran('cat a'), ran('cat b')] })
    expect(later.steps.map(pointed)).toEqual([true, false])
  })
})

describe('shell-tool-nudges in a run', () => {
  it('runs after track-shell-reads: a `cat` still counts as a read for requireReadBeforeEdit, and the pointer is recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zidane-shell-nudges-'))
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n')
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'shell', input: { command: 'cat a.txt' } }] },
      { toolCalls: [{ name: 'edit', input: { path: 'a.txt', old_string: 'two', new_string: '2' } }] },
      { text: 'done' },
    ])
    const session = await createSession()
    const agent = createAgent({
      provider,
      tools: { shell, read_file: readFile, edit },
      execution: createProcessContext({ cwd: dir }),
      session,
      behavior: { shellToolNudges: true, requireReadBeforeEdit: true },
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n2\n')
    const results = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(String(results[0].output)).toMatch(/\[exit code 0 · [^\]]*\]\n\[tip: `read_file` reads files/)
  })
})
