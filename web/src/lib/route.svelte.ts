// A tiny router: the page is chosen by location.pathname (the server answers every unknown
// path with index.html). Same-origin links are intercepted and pushed onto history, so nav
// items stay plain <a href> links that work with the keyboard, middle-click and reload.

import { tick } from 'svelte';

export interface RouteDef {
  path: string;
  title: string;
}

export const ROUTES: RouteDef[] = [
  { path: '/', title: 'Overview' },
  { path: '/evictions', title: 'Evictions' },
  { path: '/keys', title: 'Keys' },
  { path: '/benchmarks', title: 'Benchmarks' },
  { path: '/console', title: 'Console' },
  { path: '/playground', title: 'Playground' },
  { path: '/config', title: 'Config' },
];

/** "/keys/" → "/keys", "" → "/", "/index.html" → "/". */
export function normalizePath(path: string): string {
  let p = path.replace(/\/{2,}/g, '/');
  if (p === '' || p === '/index.html') return '/';
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

export function findRoute(path: string): RouteDef | null {
  const p = normalizePath(path);
  return ROUTES.find((r) => r.path === p) ?? null;
}

export class Router {
  path = $state(normalizePath(typeof location === 'undefined' ? '/' : location.pathname));
  route = $derived(findRoute(this.path));

  /** Listens to history and link clicks; returns a function that stops listening. */
  attach(win: Window = window): () => void {
    const onPop = () => {
      this.path = normalizePath(win.location.pathname);
    };
    const onClick = (e: MouseEvent) => {
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
    win.document.addEventListener('click', onClick);
    return () => {
      win.removeEventListener('popstate', onPop);
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
