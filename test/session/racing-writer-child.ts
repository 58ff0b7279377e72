/**
 * Child process for the file store's two-process races. Arguments:
 * <store dir> <create|append> <who> <start time in ms since the epoch> <count>.
 * `create`: round i creates session `race-<i>` at start + 20·i ms, so two
 * children try each id at nearly the same moment. `append`: appends `count`
 * turns to session `shared`, naming no lease owner, from the start time on.
 * Prints what each call answered, as JSON.
 */
import { createFileStore } from '../../src/session/stores'

const [dir, mode, who, startAt, count] = process.argv.slice(2)
const store = createFileStore({ dir })
const outcomes: string[] = []

/** Wait, spinning, until `at`: a timer would be too coarse to line two processes up. */
function spinUntil(at: number): void {
  while (Date.now() < at) {
    // Spin.
  }
}

async function race(): Promise<void> {
  spinUntil(Number(startAt))
  for (let i = 0; i < Number(count); i++) {
    try {
      if (mode === 'create') {
        spinUntil(Number(startAt) + i * 20)
        await store.create({ id: `race-${i}`, createdAt: 1, metadata: { who } })
      }
      else {
        await store.appendTurns('shared', [{ id: `${who}-${i}`, role: 'user', createdAt: i, content: [{ type: 'text', text: `${who} ${i}` }] }])
      }
      outcomes.push('ok')
    }
    catch (error) {
      outcomes.push((error as { code?: string }).code ?? String(error))
    }
  }
  await store.close?.()
  process.stdout.write(JSON.stringify(outcomes))
}

void race()
