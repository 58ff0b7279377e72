import type { Provider, SkillActivateContext } from '../src'
import type { SkillConfig } from '../src/skills'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { openai } from '../src/providers/openai'

// Live trigger test of skills: does a real model activate the right skill from the catalog, and only then?
// Positives should activate their skill; near-neighbours sound close to a skill but need none (or another);
// negatives need none. Reports activation recall and false activations; skipped unless a key is set.

const LIBRARY = fileURLToPath(new URL('../test/fixtures/skills/library', import.meta.url))

/** Skills next to the library's, so the catalog has neighbours to confuse. */
const EXTRA: SkillConfig[] = [
  { name: 'csv-cleanup', description: 'Clean and normalize CSV files: fix delimiters, encodings, header rows and duplicate records. Use when a CSV file is malformed or messy.', body: 'Detect the delimiter first, then the encoding; never reorder columns.' },
  { name: 'docker-debug', description: 'Diagnose containers that fail to start or crash-loop: read logs, inspect exit codes, check mounts and health checks. Use when a Docker container will not run.', body: 'Start with `docker logs` and the exit code.' },
]

interface Case {
  readonly prompt: string
  /** The skill that should activate; `undefined`: none should. */
  readonly expect?: string
  readonly kind: 'positive' | 'near' | 'negative'
}

const CASES: readonly Case[] = [
  { kind: 'positive', expect: 'pdf-forms', prompt: 'I have a fillable PDF tax form (form.pdf). Fill in my name and tick the "married" checkbox.' },
  { kind: 'positive', expect: 'release-notes', prompt: 'Prepare the changelog for v2.3.0 from the commits since the last tag.' },
  { kind: 'positive', expect: 'sql-review', prompt: 'Please review this migration before I merge it: ALTER TABLE orders ADD COLUMN region text DEFAULT \'eu\'; CREATE INDEX orders_region ON orders(region);' },
  { kind: 'positive', expect: 'csv-cleanup', prompt: 'export.csv has semicolons in some rows and commas in others, and the header appears twice. Fix it.' },
  { kind: 'positive', expect: 'docker-debug', prompt: 'My api container keeps restarting every few seconds after I deploy it. Help me find out why.' },
  { kind: 'near', prompt: 'Convert this Word document to a PDF file for printing.' },
  { kind: 'near', prompt: 'What does the SQL keyword HAVING do, in one sentence?' },
  { kind: 'near', prompt: 'Write a git commit message for a change that renames a function.' },
  { kind: 'near', prompt: 'What is the difference between a Docker image and a container? One sentence.' },
  { kind: 'negative', prompt: 'What is the capital of Australia?' },
  { kind: 'negative', prompt: 'Write a haiku about the sea.' },
  { kind: 'negative', prompt: 'What is 17 * 23?' },
]

async function measure(provider: Provider) {
  const outcomes: { case: Case, activated: string[] }[] = []
  for (const entry of CASES) {
    const activated: string[] = []
    const agent = createAgent({
      provider,
      skills: [LIBRARY, ...EXTRA],
      system: 'You are a helpful assistant. Use a skill when one fits the task.',
      behavior: { maxTurns: 1, maxTokens: 1024 },
      hooks: { 'skills:activate': (ctx: SkillActivateContext) => void activated.push(ctx.name) },
    })
    await agent.run({ prompt: entry.prompt })
    outcomes.push({ case: entry, activated })
  }
  const positives = outcomes.filter(outcome => outcome.case.kind === 'positive')
  const others = outcomes.filter(outcome => outcome.case.kind !== 'positive')
  const hits = positives.filter(outcome => outcome.activated.includes(outcome.case.expect!)).length
  const wrong = positives.filter(outcome => outcome.activated.some(name => name !== outcome.case.expect)).length
  const falseActivations = others.filter(outcome => outcome.activated.length > 0).length
  const report = {
    provider: provider.name,
    recall: hits / positives.length,
    wrongSkillOnPositives: wrong,
    falseActivations: `${falseActivations}/${others.length}`,
    outcomes: outcomes.map(outcome => `${outcome.case.kind} ${outcome.case.expect ?? '-'} → ${outcome.activated.join(',') || 'none'}`),
  }
  console.log(JSON.stringify(report, null, 2))
  return { recall: report.recall, falseActivations, others: others.length }
}

describe.skipIf(!process.env.ANTHROPIC_API_KEY)('skills trigger (anthropic, live)', () => {
  it('activates the matching skill for positives and none for near-neighbours and negatives', async () => {
    const { recall, falseActivations, others } = await measure(anthropic())
    expect(recall).toBeGreaterThanOrEqual(0.8)
    expect(falseActivations / others).toBeLessThanOrEqual(0.3)
  }, 300_000)
})

describe.skipIf(!process.env.OPENAI_API_KEY)('skills trigger (openai, live)', () => {
  it('activates the matching skill for positives and none for near-neighbours and negatives', async () => {
    const { recall, falseActivations, others } = await measure(openai())
    expect(recall).toBeGreaterThanOrEqual(0.8)
    expect(falseActivations / others).toBeLessThanOrEqual(0.3)
  }, 300_000)
})
