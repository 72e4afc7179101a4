import type { Ref } from 'vue'
import { onBeforeRouteLeave } from 'vue-router'
import { ElMessageBox } from 'element-plus'

/** Asks before the router leaves a page whose form has unsaved changes (`dirty`). */
export function useLeaveGuard(dirty: Ref<boolean>) {
  onBeforeRouteLeave(async () => {
    if (!dirty.value) return true
    try {
      await ElMessageBox.confirm('Your changes are not saved. Leave anyway?', 'Unsaved changes', {
        type: 'warning',
        confirmButtonText: 'Leave',
        cancelButtonText: 'Stay',
      })
      return true
    } catch {
      return false
    }
  })
}
