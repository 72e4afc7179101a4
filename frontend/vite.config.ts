import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import { fileURLToPath, URL } from 'node:url'

// Built into dist/, which Django serves as static files (settings.STATICFILES_DIRS) behind its
// login: templates/spa.html reads spa-manifest.json for the entry script and CSS. `base: './'`
// keeps chunk and font URLs relative, so the app works under any STATIC_URL.
export default defineConfig({
  plugins: [vue()],
  base: './',
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    // `npm run dev`: sign in on Django (:8000) first; the session cookie is shared by host.
    proxy: { '/api': 'http://127.0.0.1:8000', '/login': 'http://127.0.0.1:8000', '/admin': 'http://127.0.0.1:8000' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: 'spa-manifest.json',
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached between releases.
        manualChunks(id: string) {
          if (id.includes('node_modules/echarts') || id.includes('node_modules/zrender')) return 'echarts'
          if (id.includes('node_modules/@form-create')) return 'form-create'
          if (id.includes('node_modules/element-plus') || id.includes('node_modules/@element-plus')) return 'element-plus'
          if (id.includes('node_modules/')) return 'vendor'
          return undefined
        },
      },
    },
  },
})
