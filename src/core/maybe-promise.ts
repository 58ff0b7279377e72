/** A value, or a promise of it: for callbacks a host may write sync or async. */
export type MaybePromise<T = void> = T | Promise<T>
