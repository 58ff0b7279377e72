import type { McpCredentialStore, McpStoredCredentials } from './types'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/** The store key of one server: its name and URL, so renaming a server or moving its URL starts afresh. */
export function mcpCredentialKey(server: { name: string, url?: string }): string {
  return `${server.name}|${server.url ?? ''}`
}

/** Records are copied in and out, so a caller mutating what it loaded cannot change the store. */
function copy(credentials: McpStoredCredentials): McpStoredCredentials {
  return JSON.parse(JSON.stringify(credentials)) as McpStoredCredentials
}

/** Credentials kept in this process only: they are gone when it exits. */
export function createMemoryMcpCredentialStore(): McpCredentialStore {
  const records = new Map<string, McpStoredCredentials>()
  return {
    load: async key => records.has(key) ? copy(records.get(key)!) : undefined,
    save: async (key, credentials) => {
      records.set(key, copy(credentials))
    },
    delete: async (key) => {
      records.delete(key)
    },
  }
}

interface FileContents {
  version: 1
  servers: Record<string, McpStoredCredentials>
}

/**
 * One queue per file, shared by every store of this process that points at it,
 * so two saves never interleave their read-modify-write.
 */
const fileQueues = new Map<string, Promise<unknown>>()

function enqueue<T>(path: string, work: () => Promise<T>): Promise<T> {
  const previous = fileQueues.get(path) ?? Promise.resolve()
  const next = previous.then(work, work)
  const settled = next.then(() => {}, () => {})
  fileQueues.set(path, settled)
  void settled.then(() => {
    if (fileQueues.get(path) === settled)
      fileQueues.delete(path)
  })
  return next
}

async function readContents(path: string): Promise<FileContents> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { version: 1, servers: {} }
    throw error
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  }
  catch (error) {
    throw new Error(`MCP credential file ${path} is not valid JSON; fix or delete it`, { cause: error })
  }
  const servers = (parsed as Partial<FileContents> | null)?.servers
  if (!servers || typeof servers !== 'object' || Array.isArray(servers))
    throw new Error(`MCP credential file ${path} has no "servers" object; fix or delete it`)
  return { version: 1, servers }
}

/** Write next to the target and rename over it, so a reader (or a crash) never sees half a file. */
async function writeContents(path: string, contents: FileContents): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await writeFile(temp, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 })
    // `mode` is filtered through the umask; tokens must never be group- or world-readable.
    await chmod(temp, 0o600)
    await rename(temp, path)
  }
  catch (error) {
    await rm(temp, { force: true }).catch(() => {})
    throw error
  }
}

/**
 * Credentials in one JSON file (created with mode 0600, its directory with
 * 0700). Every write goes to a temporary file that is renamed over the old
 * one; saves from this process are applied one after the other.
 */
export function createFileMcpCredentialStore(path: string): McpCredentialStore {
  const file = resolve(path)
  return {
    load: key => enqueue(file, async () => {
      const record = (await readContents(file)).servers[key]
      return record ? copy(record) : undefined
    }),
    save: (key, credentials) => enqueue(file, async () => {
      const contents = await readContents(file)
      contents.servers[key] = copy(credentials)
      await writeContents(file, contents)
    }),
    delete: key => enqueue(file, async () => {
      const contents = await readContents(file)
      if (!(key in contents.servers))
        return
      delete contents.servers[key]
      await writeContents(file, contents)
    }),
  }
}
