// A tiny router. The dashboard chooses the page by location.pathname (the server answers every
// unknown path with index.html); same-origin links are intercepted and pushed onto history, so
// nav items stay plain <a href> links that work with the keyboard, middle-click and reload.
// The static playground (any static host, any sub-directory) routes by the hash instead:
// `index.html#/keys`.
//
// Which pages there are depends on the backend's features (routesFor): a shell mounted under
// a base path (`/playground` for the wasm backend inside the dashboard) has its own table.

import { tick } from 'svelte';
import type { Backend } from './backend/backend';

export type PageId =
  | 'overview'
  | 'evictions'
  | 'memory'
  | 'keys'
  | 'clients'
  | 'monitor'
  | 'events'
  | 'slowlog'
  | 'latency'
  | 'hotkeys'
  | 'compat'
  | 'scripts'
  | 'benchmarks'
  | 'console'
  | 'config'
  | 'users'
  | 'playground';

export interface RouteDef {
  /** Path within the shell ('/' is its first page). */
  path: string;
  title: string;
  page: PageId;
}

/** A link in the sidebar. */
export interface NavLink {
  href: string;
  title: string;
  /** An Icon name. */
  icon: string;
  current?: boolean;
}

const PAGES: Record<PageId, string> = {
  overview: 'Overview',
  evictions: 'Evictions',
  memory: 'Memory',
  keys: 'Keys',
  clients: 'Clients',
  monitor: 'Monitor',
  events: 'Events',
  slowlog: 'Slow log',
  latency: 'Latency',
  hotkeys: 'Hot keys',
  compat: 'Compatibility',
  scripts: 'Scripts',
  benchmarks: 'Benchmarks',
  console: 'Console',
  config: 'Config',
  users: 'Users',
  playground: 'Playground',
};

const route = (path: string, page: PageId): RouteDef => ({ path, title: PAGES[page], page });

/**
 * The pages a backend has: every view, Benchmarks when it runs them, and with a playground
 * session its own first page (the tour, share links), the Overview moving to /overview.
 */
export function routesFor(backend: Pick<Backend, 'bench' | 'playground'>): RouteDef[] {
  return [
    ...(backend.playground ? [route('/', 'playground'), route('/overview', 'overview')] : [route('/', 'overview')]),
    route('/evictions', 'evictions'),
    route('/memory', 'memory'),
    route('/keys', 'keys'),
    route('/clients', 'clients'),
    route('/monitor', 'monitor'),
    route('/events', 'events'),
    route('/slowlog', 'slowlog'),
    route('/latency', 'latency'),
    route('/hotkeys', 'hotkeys'),
    route('/compat', 'compat'),
    route('/scripts', 'scripts'),
    ...(backend.bench ? [route('/benchmarks', 'benchmarks')] : []),
    route('/console', 'console'),
    route('/config', 'config'),
    route('/users', 'users'),
  ];
}

/** "/keys/" → "/keys", "" → "/", "/index.html" → "/". */
export function normalizePath(path: string): string {
  let p = path.replace(/\/{2,}/g, '/');
  if (p === '' || p === '/index.html') return '/';
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** The path within a shell mounted at `base`, or null when `path` is outside it. */
export function within(base: string, path: string): string | null {
  if (base === '') return path;
  if (path === base) return '/';
  return path.startsWith(base + '/') ? path.slice(base.length) : null;
}

export function findRoute(routes: RouteDef[], path: string): RouteDef | null {
  const p = normalizePath(path);
  return routes.find((r) => r.path === p) ?? null;
}

/** The path a location names: its pathname, or in hash mode what follows `#`. */
function readPath(loc: Location, hash: boolean): string | null {
  if (!hash) return normalizePath(loc.pathname);
  // Other hashes (the skip link's #main, a share link's #cmds=) leave the page as it is.
  if (loc.hash === '' || loc.hash === '#') return '/';
  return loc.hash.startsWith('#/') ? normalizePath(loc.hash.slice(1).split('?')[0]) : null;
}

export class Router {
  /** Routes by the hash (the static playground) instead of the pathname. */
  hash = false;
  path = $state(typeof location === 'undefined' ? '/' : normalizePath(location.pathname));

  /** Switches to hash routing (before the app mounts). */
  useHash(): void {
    this.hash = true;
    this.path = readPath(location, true) ?? '/';
  }

  /** The href of a path: itself, or `#/path` in hash mode. */
  href(path: string): string {
    return this.hash ? `#${path}` : path;
  }

  /** A query parameter of the page's address (`/keys?key=x`, or `#/keys?key=x`). */
  param(name: string): string | null {
    return this.#query().get(name);
  }

  /** Sets (or with null removes) a query parameter, without a new history entry. */
  setParam(name: string, value: string | null): void {
    const q = this.#query();
    if (value === null) q.delete(name);
    else q.set(name, value);
    const search = q.size ? `?${q}` : '';
    const url = this.hash ? `${location.pathname}${location.search}#${this.path}${search}` : `${location.pathname}${search}`;
    history.replaceState(history.state, '', url);
  }

  #query(): URLSearchParams {
    if (!this.hash) return new URLSearchParams(location.search);
    const h = location.hash;
    const at = h.indexOf('?');
    return new URLSearchParams(h.startsWith('#/') && at >= 0 ? h.slice(at + 1) : '');
  }

  /** Listens to history and link clicks; returns a function that stops listening. */
  attach(win: Window = window): () => void {
    const onPop = () => {
      const p = readPath(win.location, this.hash);
      if (p !== null) this.path = p;
    };
    const onClick = (e: MouseEvent) => {
      if (this.hash) return; // #/... links: the browser's own navigation, then hashchange
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a');
      if (!a || a.target || a.hasAttribute('download')) return;
      // In-page anchors (the skip link) keep their default behaviour.
      if ((a.getAttribute('href') ?? '').startsWith('#')) return;
      const url = new URL(a.href, win.location.href);
      if (url.origin !== win.location.origin || url.pathname.startsWith('/api/') || url.pathname === '/metrics') return;
      e.preventDefault();
      this.navigate(url.pathname + url.search + url.hash);
    };
    win.addEventListener('popstate', onPop);
    win.addEventListener('hashchange', onPop);
    win.document.addEventListener('click', onClick);
    return () => {
      win.removeEventListener('popstate', onPop);
      win.removeEventListener('hashchange', onPop);
      win.document.removeEventListener('click', onClick);
    };
  }

  /** Goes to `to`, then moves focus to the new page's heading (for screen readers). */
  navigate(to: string): void {
    const url = new URL(to, location.href);
    const path = normalizePath(url.pathname);
    if (path !== this.path || url.search !== location.search) {
      history.pushState(null, '', url.pathname + url.search + url.hash);
    }
    this.path = path;
    window.scrollTo(0, 0);
    void tick().then(() => document.querySelector<HTMLElement>('main h1')?.focus());
  }
}

export const router = new Router();
