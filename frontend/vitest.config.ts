import { defineConfig, mergeConfig } from 'vitest/config'
import viteConfig from './vite.config.ts'

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'happy-dom',
      include: ['tests/**/*.test.ts'],
      setupFiles: ['tests/setup.ts'],
      // Without this Element Plus and form-create validation silently pass in tests.
      server: { deps: { inline: ['element-plus', '@form-create/element-ui'] } },
    },
  }),
)
