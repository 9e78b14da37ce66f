// Entry point of the static playground (`npm run build:playground` → web/dist-playground):
// the Playground page alone, with no server behind it.
import './app.css';
import { mount } from 'svelte';
import PlaygroundApp from './PlaygroundApp.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('playground.html has no #app element');

export default mount(PlaygroundApp, { target });
