// AppState: one backend and the state every page shares over it: the stats feed, the facts of
// the last snapshot, the command table and the console. The shell (Shell.svelte) provides it
// through context; pages read it with `useApp()` and never know which backend is underneath.

import { createContext } from 'svelte';
import { CommandTable, newSessionId } from '../commands.svelte';
import { ConsoleState } from '../console.svelte';
import { Permissions } from '../permissions.svelte';
import { ServerInfo } from '../server.svelte';
import { StatsFeed } from '../stats.svelte';
import type { Backend } from './backend';

export class AppState {
  readonly backend: Backend;
  readonly feed: StatsFeed;
  readonly info: ServerInfo;
  readonly commands: CommandTable;
  /** One terminal for the whole app: the Console page and the playground's tour share it. */
  readonly console: ConsoleState;
  /** What the signed-in principal may do (GET /api/auth/me), so pages disable what it may not. */
  readonly perm: Permissions;

  constructor(backend: Backend, options: { storage?: Storage | null } = {}) {
    this.backend = backend;
    this.feed = new StatsFeed(backend.feed);
    this.info = new ServerInfo(() => backend.stats());
    this.commands = new CommandTable();
    this.perm = new Permissions(() => backend.me());
    // One session per console, so a transaction typed line by line works.
    const session = newSessionId();
    this.console = new ConsoleState({
      run: (line) => backend.console(line, session),
      keyCount: () => this.feed.latest?.keys ?? null,
      table: this.commands,
      storage: options.storage,
      historyKey: backend.label.historyKey,
      confirmDangerous: backend.label.shared,
    });
  }

  /** Loads the command table (once) for hints and completion; failures are retried later. */
  loadCommands(): void {
    this.commands.load(() => this.backend.commands()).catch(() => {});
  }
}

const [getApp, setApp] = createContext<AppState>();

/** The app of the shell this component is in. */
export const useApp = getApp;
/** Provides `app` to the shell's pages (called by Shell.svelte). */
export const provideApp = setApp;
