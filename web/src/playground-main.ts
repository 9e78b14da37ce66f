// Entry point of the static playground (`npm run build:playground` → web/dist-playground):
// the app shell on the wasm backend, with no server behind it, routed by the hash so any
// static host serves every page.
import './app.css';
import { mount } from 'svelte';
import PlaygroundApp from './PlaygroundApp.svelte';
import { router } from './lib/route.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('playground.html has no #app element');

router.useHash();

export default mount(PlaygroundApp, { target });
