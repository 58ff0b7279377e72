/** The messages between a codemode sandbox worker and the thread that runs the agent. */

/** Start a script in a fresh VM. */
export interface RunMessage {
  readonly type: 'run'
  readonly id: number
  /** The guest prelude (`PRELUDE`). */
  readonly prelude: string
  /** The wrapped script (`wrapScript(code)`). */
  readonly script: string
  readonly scriptFile: string
  /** Wire names of the tools scripts reach as `tools.<name>`, as a JSON array. */
  readonly names: string
  /** Set to non-zero by the host to interrupt the VM: 1 time limit, 2 abort. */
  readonly flag: SharedArrayBuffer
  /** Real-time deadline (epoch ms) the VM checks on its own too. */
  readonly deadline: number
  readonly memoryLimit: number
  /** Nested requests the script may make; the worker refuses the ones past it without sending them. */
  readonly maxCalls: number
  readonly limits: ScriptLimits
  /** Send each print as it happens (`streamProgress`). */
  readonly progress: boolean
}

/** What a script may hand to the host. */
export interface ScriptLimits {
  /** Characters of printed text kept (later lines are counted, not kept). */
  readonly maxPrintChars: number
  /** Characters of the return value's JSON kept. */
  readonly maxValueChars: number
  /** Characters of one nested call's arguments. */
  readonly maxArgumentChars: number
  /** Characters of the arguments of all a script's nested calls together (each is recorded with the call). */
  readonly maxArgumentTotalChars: number
  /** Prints sent live when `progress` is on. */
  readonly maxProgressEvents: number
  /** Characters of one live print. */
  readonly maxProgressChars: number
}

/** The answer to a nested call: the JSON text of the value, or an error for the script to catch. */
export type ReplyMessage = { readonly type: 'reply', readonly id: number, readonly seq: number } & (
  | { readonly ok: true, readonly value: string }
  | { readonly ok: false, readonly message: string, readonly tool: string, readonly blocked: boolean }
)

/** Stop the script now (its VM is dropped). */
export interface StopMessage {
  readonly type: 'stop'
  readonly id: number
  readonly reason: StopReasonCode
}

/** 1: the time limit; 2: the caller aborted (the run, or the call). */
export type StopReasonCode = 1 | 2

export type ToWorker = RunMessage | ReplyMessage | StopMessage

/** What a script asked of the host: a tool call, a search of the catalog, or one tool's description. */
export interface CallMessage {
  readonly type: 'call'
  readonly id: number
  readonly seq: number
  readonly kind: 'tool' | 'search' | 'describe'
  readonly name: string
  /** The arguments as JSON text (`''` when none were given). */
  readonly input: string
  readonly line?: number
}

/** One printed line, sent live (`streamProgress`). */
export interface PrintMessage {
  readonly type: 'print'
  readonly id: number
  readonly text: string
  readonly line?: number
}

/** How a script ended. */
export type ScriptEnd
  = | { readonly kind: 'value', readonly value?: { readonly json: boolean, readonly text: string } }
    | { readonly kind: 'error', readonly name: string, readonly message: string, readonly line?: number, readonly memory?: boolean }
    | { readonly kind: 'stopped', readonly reason: StopReasonCode }

export interface DoneMessage {
  readonly type: 'done'
  readonly id: number
  readonly end: ScriptEnd
  readonly printed: readonly string[]
  /** Printed lines left out past `maxPrintChars`. */
  readonly droppedLines: number
  /** The return value was cut to `maxValueChars`. */
  readonly valueCut: boolean
  /** Milliseconds from the run message to a VM ready for the script. */
  readonly startMs: number
  /** The worker hit something it cannot vouch for afterwards; the host replaces it. */
  readonly broken?: boolean
}

/** The worker has loaded the engine and takes scripts. */
export interface ReadyMessage {
  readonly type: 'ready'
  readonly id: 0
}

export type FromWorker = CallMessage | PrintMessage | DoneMessage | ReadyMessage
