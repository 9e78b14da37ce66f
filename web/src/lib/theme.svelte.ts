// Light and dark: follows the system (prefers-color-scheme) until the person picks one with
// the toggle; the choice is kept in localStorage and applied as <html data-theme="...">.

import { MediaQuery } from 'svelte/reactivity';

export type ThemeChoice = 'system' | 'light' | 'dark';
const STORAGE_KEY = 'vitrine.theme';

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export class Theme {
  choice = $state<ThemeChoice>(typeof localStorage === 'undefined' ? 'system' : stored());
  #prefersDark = new MediaQuery('(prefers-color-scheme: dark)', false);
  dark = $derived(this.choice === 'dark' || (this.choice === 'system' && this.#prefersDark.current));

  set(choice: ThemeChoice): void {
    this.choice = choice;
    try {
      if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // storage disabled: the choice lasts for this page
    }
    this.apply();
  }

  /** Flips between light and dark (from whatever is showing now). */
  toggle(): void {
    this.set(this.dark ? 'light' : 'dark');
  }

  apply(): void {
    if (typeof document === 'undefined') return;
    const root = document.documentElement;
    if (this.choice === 'system') delete root.dataset.theme;
    else root.dataset.theme = this.choice;
  }
}

export const theme = new Theme();
