import type { BehaviorPolicy } from './policy'

function defaultMessage(remaining: number) {
  return `You have ${remaining} turn${remaining === 1 ? '' : 's'} left before this run stops. `
    + 'Finish the most important remaining step, then reply with a short summary of what is done and what is not.'
}

/**
 * `maxTurnsWarning`: once, after the turn that leaves exactly that many turns,
 * tell the model to wrap up, so a run that meets `maxTurns` ends with an
 * answer instead of mid-task.
 */
export const maxTurnsWarning: BehaviorPolicy = {
  name: 'max-turns-warning',
  attach(ctx) {
    const { maxTurns, maxTurnsWarning: warnAt, maxTurnsWarningMessage } = ctx.behavior
    if (maxTurns === undefined || !Number.isFinite(maxTurns) || warnAt === undefined)
      return
    if (!(warnAt > 0) || warnAt >= maxTurns)
      return

    let warned = false
    return ctx.hooks.hook('turn:after', () => {
      const remaining = maxTurns - ctx.run.turnCount
      if (warned || remaining !== warnAt)
        return
      warned = true
      const text = typeof maxTurnsWarningMessage === 'function'
        ? maxTurnsWarningMessage({ maxTurns, remaining })
        : maxTurnsWarningMessage ?? defaultMessage(remaining)
      ctx.inject(text, 'max-turns-warning')
    })
  },
}
