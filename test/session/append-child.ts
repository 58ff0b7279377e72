/**
 * Child process for the file store's kill test: appends large batches to one
 * session as fast as it can until it is killed. Arguments: <store dir> <session id>.
 */
import { createFileStore } from '../../src/session/stores'

const [dir, id] = process.argv.slice(2)
const store = createFileStore({ dir })
const payload = 'k'.repeat(256 * 1024)

async function appendUntilKilled(): Promise<never> {
  for (let batch = 0; ; batch++) {
    const turns = [0, 1, 2, 3].map(turn => ({ id: `b${batch}-t${turn}`, role: 'user' as const, createdAt: batch, content: [{ type: 'text' as const, text: payload }] }))
    await store.appendTurns(id, turns)
    process.stdout.write(`appended ${batch}\n`)
  }
}

void appendUntilKilled()
