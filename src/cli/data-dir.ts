/**
 * Where the command keeps its data: `--data-dir`, else `$ZIDANE_HOME`, else
 * the user's data folder (`$XDG_DATA_HOME/zidane`, `~/.local/share/zidane`;
 * `%LOCALAPPDATA%\zidane` on Windows). Inside it:
 *
 * - `transcripts/<id>.jsonl`: the sessions (a file store);
 * - `tool-results/<id>/`: large tool results of a session (`persistDir`);
 * - `sessions/<id>/tasks/`: its background-task logs (`tasksDir`).
 *
 * The transcripts have a folder of their own because an agent's file tools
 * are kept out of its session store's folder, and the model must be able to
 * read the other two.
 */

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** The folder of the session store, under the data folder. */
export const TRANSCRIPTS_FOLDER = 'transcripts'

export function resolveDataDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string, platform: NodeJS.Platform = process.platform): string {
  if (flag !== undefined && flag !== '')
    return resolve(cwd, flag)
  if (env.ZIDANE_HOME)
    return resolve(cwd, env.ZIDANE_HOME)
  if (platform === 'win32')
    return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'zidane')
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'zidane')
}
