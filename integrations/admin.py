from django.contrib import admin

from .models import Delivery, Integration


@admin.register(Integration)
class IntegrationAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "url", "enabled", "updated_at"]
    exclude = ["secret_ciphertext"]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "integration_name", "kind", "event", "run", "status", "attempt", "created_at"]
    list_filter = ["status", "kind"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
