import { ref } from 'vue'
import { useRouter } from 'vue-router'
import { ElMessage } from 'element-plus'
import { startRun } from '@/api/runs'
import { errorMessage } from '@/http'

/** "Run now" for one check or a selection: the API answers 202 with the run, whose page shows it live. */
export function useRunChecks() {
  const router = useRouter()
  const starting = ref(false)

  async function runChecks(ids: number[]) {
    if (!ids.length) return
    starting.value = true
    try {
      const run = await startRun(ids)
      ElMessage.success(`Run #${run.id} queued with ${ids.length} check${ids.length === 1 ? '' : 's'}.`)
      await router.push({ name: 'run', params: { id: run.id } })
    } catch (error) {
      ElMessage.error(errorMessage(error))
    } finally {
      starting.value = false
    }
  }

  return { runChecks, starting }
}
