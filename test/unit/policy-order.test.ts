import type { BehaviorPolicy } from '../../src/policies/policy'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AgentPolicyError, RunStateError } from '../../src/errors'
import { orderPolicies } from '../../src/loop/policy-runner'
import { assertPolicyState, createRunState, parseRunState, serializeRunState } from '../../src/loop/run-state'

/** Policies p0..p(n-1); each edge [a, b] says "p<a> runs after p<b>". */
function policies(n: number, edges: readonly (readonly [number, number])[]): BehaviorPolicy[] {
  return Array.from({ length: n }, (_, i) => {
    const after = edges.filter(([a]) => a === i).map(([, b]) => `p${b}`)
    return after.length > 0 ? { name: `p${i}`, after } : { name: `p${i}` }
  })
}

describe('orderPolicies', () => {
  it('keeps the list order when nothing says otherwise', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 12 }), (n) => {
      expect(orderPolicies(policies(n, [])).map(p => p.name)).toEqual(Array.from({ length: n }, (_, i) => `p${i}`))
    }))
  })

  it('puts every policy after the ones it names, for any acyclic `after` graph', () => {
    // An edge a -> b is kept only when a ranks above b in a random permutation, so the graph has no cycle.
    const dag = fc.integer({ min: 1, max: 10 }).chain(n => fc.tuple(
      fc.constant(n),
      fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n }),
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 20 }),
    ))
    fc.assert(fc.property(dag, ([n, rank, pairs]) => {
      const edges = pairs.filter(([a, b]) => rank.indexOf(a) > rank.indexOf(b)) as [number, number][]
      const order = orderPolicies(policies(n, edges)).map(p => p.name)
      expect([...order].sort()).toEqual(Array.from({ length: n }, (_, i) => `p${i}`).sort())
      for (const [a, b] of edges)
        expect(order.indexOf(`p${a}`)).toBeGreaterThan(order.indexOf(`p${b}`))
    }))
  })

  it('takes the earliest policy in list order whose `after` is met, whichever way the edges point', () => {
    // The order spelled out step by step: repeatedly the first policy not yet placed whose named policies all are.
    const earliestReady = (n: number, edges: readonly (readonly [number, number])[]): string[] => {
      const placed: number[] = []
      while (placed.length < n) {
        const next = Array.from({ length: n }, (_, i) => i)
          .find(i => !placed.includes(i) && edges.every(([a, b]) => a !== i || placed.includes(b)))!
        placed.push(next)
      }
      return placed.map(i => `p${i}`)
    }
    // Backward edges only (every `after` names an earlier policy) half the time, edges either way otherwise; never a cycle.
    const graph = fc.integer({ min: 1, max: 10 }).chain(n => fc.tuple(
      fc.constant(n),
      fc.boolean(),
      fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n }),
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 20 }),
    ))
    fc.assert(fc.property(graph, ([n, backwardOnly, rank, pairs]) => {
      const edges = pairs.filter(([a, b]) => backwardOnly ? a > b : rank.indexOf(a) > rank.indexOf(b)) as [number, number][]
      expect(orderPolicies(policies(n, edges)).map(p => p.name)).toEqual(earliestReady(n, edges))
    }))
  })

  it('refuses any graph with a cycle, naming a policy on it', () => {
    const cyclic = fc.integer({ min: 1, max: 8 }).chain(n => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n })))
    fc.assert(fc.property(cyclic, ([n, length]) => {
      // p0 -> p1 -> ... -> p(length-1) -> p0
      const edges = Array.from({ length }, (_, i) => [i, (i + 1) % length] as const)
      let error: unknown
      try {
        orderPolicies(policies(n, edges))
      }
      catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(AgentPolicyError)
      expect(error).toMatchObject({ problem: 'cycle' })
      expect(Number((error as AgentPolicyError).policy.slice(1))).toBeLessThan(length)
    }))
  })

  it('checks a frozen policy once, and one that can change every time', () => {
    // Counts the reads of one member the shape check looks at.
    const counted = (target: BehaviorPolicy) => {
      let reads = 0
      const policy = new Proxy(target, {
        get(object, key, receiver) {
          if (key === 'afterTurn')
            reads++
          return Reflect.get(object, key, receiver)
        },
      })
      return { policy, reads: () => reads }
    }
    const frozen = counted(Object.freeze({ name: 'frozen', after: Object.freeze(['open']) }))
    const open = counted({ name: 'open' })
    orderPolicies([open.policy, frozen.policy])
    orderPolicies([open.policy, frozen.policy])
    expect(frozen.reads()).toBe(1)
    expect(open.reads()).toBe(2)
    // A frozen policy whose `after` list can still change is checked every time.
    const loose = counted(Object.freeze({ name: 'loose', after: ['open'] }))
    orderPolicies([open.policy, loose.policy])
    orderPolicies([open.policy, loose.policy])
    expect(loose.reads()).toBe(2)
  })

  it('still refuses a malformed policy on every agent made with it', () => {
    const bad = { name: 'bad', afterTurn: 'not a function' } as unknown as BehaviorPolicy
    expect(() => orderPolicies([bad])).toThrow(AgentPolicyError)
    expect(() => orderPolicies([bad])).toThrow(AgentPolicyError)
    const frozenBad = Object.freeze({ name: 'frozen-bad', afterTurn: 42 }) as unknown as BehaviorPolicy
    expect(() => orderPolicies([frozenBad])).toThrow(AgentPolicyError)
    expect(() => orderPolicies([frozenBad])).toThrow(AgentPolicyError)
  })
})

describe('run state', () => {
  it('round-trips through JSON, and refuses what JSON would change', () => {
    const state = createRunState({ index: 0, provider: 'scripted', model: 'm' }, { 'length-resume': { resumes: 2, emptyTurns: 0 }, 'steering': null, 'list': [1, 'a', { b: true }] })
    expect(parseRunState(serializeRunState(state))).toEqual(state)
    expect(() => assertPolicyState('bad', { n: Number.NaN })).toThrow(expect.objectContaining({ name: 'AgentPolicyError', policy: 'bad', problem: 'state' }))
    expect(() => parseRunState('[]')).toThrow(RunStateError)
  })
})
