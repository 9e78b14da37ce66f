// Svelte compiler options (read by @sveltejs/vite-plugin-svelte and svelte-check).
export default {
  compilerOptions: {
    runes: true,
  },
};
