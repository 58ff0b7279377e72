/**
 * The labelled corpus of `bench/guards`: scripted agent runs, generated from a
 * seed, half of them stuck in a loop and half repeating themselves for honest
 * reasons. Each run is a plan of tool calls (one per model turn) and a model
 * temperament; `run-corpus.ts` plays them through `createAgent`.
 *
 * Loop shapes:
 * - `identical`: the same `shell` command or `read_file` over and over.
 * - `noisy`: the same command with a fresh timestamp or request id in it each time.
 * - `alternating`: two calls, A B A B … (a read and a command, or two commands).
 * - `read-edit-read`: read a file, apply an edit that changes nothing, read it again.
 * - `hammer-refused`: a call a host gate refuses (a spent deploy budget), sent again and again.
 *
 * Honest shapes:
 * - `poll`: a status tool polled with the same input until the job finishes (3 to 20 polls).
 * - `rerun-tests`: edit, run the tests, edit again (each edit different), 2 to 6 runs.
 * - `reread-after-write`: write or edit a file, read it back, several files, some twice.
 *
 * The model of a loop either ignores refusals (`stubborn`, the case only an
 * abort stops) or changes course after the first `Blocked:` or steering note
 * it reads (`responsive`). Every loop runs at most `MAX_CALLS` calls, the
 * stand-in for a host's turn cap.
 */

export type Label = 'loop' | 'honest'

export interface PlannedCall {
  readonly name: string
  readonly input: Record<string, unknown>
}

export interface CorpusRun {
  readonly id: string
  readonly label: Label
  readonly shape: string
  /** The plan; a loop's plan is its prefix followed by the looping pattern up to `MAX_CALLS`. */
  readonly calls: readonly PlannedCall[]
  /** Index of the first call that repeats the loop's pattern (the loop's second pass begins here). */
  readonly loopStart?: number
  /** `responsive` models stop at the first refusal or steering note; honest runs never see one. */
  readonly temperament: 'stubborn' | 'responsive'
}

/** The longest a loop may run: the turn cap a host would set. */
export const MAX_CALLS = 40

/** mulberry32: small, fast, and the same sequence on every machine for one seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

type Rand = () => number

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
const between = (rand: Rand, min: number, max: number): number => min + Math.floor(rand() * (max - min + 1))

const FILES = ['src/app.ts', 'src/db/pool.ts', 'src/routes/users.ts', 'lib/parse.ts', 'README.md', 'test/app.test.ts', 'src/config.ts']
const COMMANDS = ['npm test', 'npm run build', 'pnpm lint', 'pytest -x tests/', 'go test ./...', 'cargo check', 'make', 'git status', 'ls -la src']
const REPO = ['/repo', '/workspace/app', '/home/dev/project']

const sh = (command: string): PlannedCall => ({ name: 'shell', input: { command } })
const read = (path: string): PlannedCall => ({ name: 'read_file', input: { path } })
const edit = (path: string, from: string, to: string): PlannedCall => ({ name: 'edit', input: { path, old_string: from, new_string: to } })

/** A spelling of a command the way models vary it between retries: a `cd` prefix, a sleep tail, a flag. */
function respell(rand: Rand, command: string): string {
  const roll = rand()
  if (roll < 0.2)
    return `cd ${pick(rand, REPO)} && ${command}`
  if (roll < 0.35)
    return `${command} ; sleep ${between(rand, 1, 5)}`
  if (roll < 0.45)
    return `${command} -v`
  return command
}

/** A few honest calls before the loop: the work the model did before it got stuck. */
function prefix(rand: Rand): PlannedCall[] {
  const out: PlannedCall[] = []
  for (let i = between(rand, 0, 3); i > 0; i--)
    out.push(rand() < 0.5 ? read(pick(rand, FILES)) : sh(pick(rand, ['git log -5 --oneline', 'ls', 'cat package.json', 'git diff'])))
  return out
}

/** Repeat `pattern` after `head` until the plan holds MAX_CALLS calls; the first pass belongs to the loop too. */
function loopPlan(head: PlannedCall[], pattern: (pass: number) => PlannedCall[]): { calls: PlannedCall[], loopStart: number } {
  const calls = [...head]
  const first = pattern(0)
  calls.push(...first)
  const loopStart = calls.length
  for (let pass = 1; calls.length < MAX_CALLS; pass++)
    calls.push(...pattern(pass))
  return { calls: calls.slice(0, MAX_CALLS), loopStart }
}

function loopRun(rand: Rand, shape: string): Pick<CorpusRun, 'calls' | 'loopStart'> {
  const head = prefix(rand)
  switch (shape) {
    case 'identical': {
      const call = rand() < 0.6 ? sh(pick(rand, COMMANDS)) : read(pick(rand, FILES))
      const spelled = call.name === 'shell' && rand() < 0.5
      return loopPlan(head, () => [spelled ? sh(respell(rand, String(call.input.command))) : call])
    }
    case 'noisy': {
      const command = pick(rand, ['curl -s http://localhost:8080/health', 'npm test', 'node scripts/check.js', 'python run.py'])
      const style = between(rand, 0, 2)
      let clock = 1_733_000_000 + between(rand, 0, 1_000_000)
      return loopPlan(head, () => {
        clock += between(rand, 3, 90)
        if (style === 0)
          return [sh(`${command} > /tmp/out-${clock}.log`)]
        if (style === 1)
          return [sh(`${command} --request-id ${clock}${between(rand, 100, 999)}`)]
        return [{ name: 'shell', input: { command, description: `retry at ${new Date(clock * 1000).toISOString()}` } }]
      })
    }
    case 'alternating': {
      const a = read(pick(rand, FILES))
      const b = rand() < 0.5 ? sh(pick(rand, COMMANDS)) : read(pick(rand, FILES.filter(file => file !== a.input.path)))
      return loopPlan(head, () => [a, b])
    }
    case 'read-edit-read': {
      const path = pick(rand, FILES)
      const line = pick(rand, ['const retries = 3', 'export default app', 'return null', 'timeout: 5000'])
      return loopPlan(head, () => [read(path), edit(path, line, line)])
    }
    case 'hammer-refused': {
      const env = pick(rand, ['prod', 'staging'])
      return loopPlan(head, () => [{ name: 'deploy', input: { env } }])
    }
    default:
      throw new Error(`unknown loop shape ${shape}`)
  }
}

function honestRun(rand: Rand, shape: string): PlannedCall[] {
  switch (shape) {
    case 'poll': {
      const job = `job-${between(rand, 1, 99)}`
      const polls = between(rand, 3, 20)
      return [sh(`npm run deploy:start`), ...Array.from<PlannedCall>({ length: polls }).fill({ name: 'job_status', input: { job } }), read('deploy.log')]
    }
    case 'rerun-tests': {
      const test = pick(rand, ['npm test', 'pytest -x tests/', 'go test ./...'])
      const file = pick(rand, FILES)
      const calls: PlannedCall[] = [read(file), sh(test)]
      const runs = between(rand, 2, 6)
      for (let i = 1; i < runs; i++) {
        calls.push(edit(file, `attempt ${i - 1}`, `attempt ${i}`))
        if (rand() < 0.3)
          calls.push(sh('git diff'))
        calls.push(sh(test))
      }
      return calls
    }
    case 'reread-after-write': {
      const calls: PlannedCall[] = []
      for (let files = between(rand, 1, 4); files > 0; files--) {
        const path = pick(rand, FILES)
        calls.push(read(path))
        for (let pass = between(rand, 1, 3); pass > 0; pass--) {
          calls.push(rand() < 0.5 ? edit(path, `v${pass}`, `v${pass + 1}`) : { name: 'write_file', input: { path, content: `revision ${pass} of ${path}` } })
          calls.push(read(path))
        }
      }
      return calls
    }
    default:
      throw new Error(`unknown honest shape ${shape}`)
  }
}

export const LOOP_SHAPES = ['identical', 'noisy', 'alternating', 'read-edit-read', 'hammer-refused'] as const
export const HONEST_SHAPES = ['poll', 'rerun-tests', 'reread-after-write'] as const

/**
 * The corpus: `perLoopShape` runs of each loop shape and `perHonestShape` of
 * each honest one, all drawn from one seeded generator, so a seed names one
 * corpus exactly. The default (24 and 40) gives 240 runs.
 */
export function buildCorpus(seed = 13, perLoopShape = 24, perHonestShape = 40): CorpusRun[] {
  const rand = prng(seed)
  const runs: CorpusRun[] = []
  for (const shape of LOOP_SHAPES) {
    for (let i = 0; i < perLoopShape; i++) {
      const { calls, loopStart } = loopRun(rand, shape)
      runs.push({ id: `${shape}-${i}`, label: 'loop', shape, calls, loopStart, temperament: rand() < 0.5 ? 'stubborn' : 'responsive' })
    }
  }
  for (const shape of HONEST_SHAPES) {
    for (let i = 0; i < perHonestShape; i++)
      runs.push({ id: `${shape}-${i}`, label: 'honest', shape, calls: honestRun(rand, shape), temperament: 'responsive' })
  }
  return runs
}
