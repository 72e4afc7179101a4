from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("integrations", views.IntegrationViewSet, basename="integration")
router.register("integration-deliveries", views.DeliveryViewSet, basename="integration-delivery")

urlpatterns = router.urls
