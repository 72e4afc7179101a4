from rest_framework.routers import DefaultRouter

from .views import DatasourceViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("datasources", DatasourceViewSet, basename="datasource")

urlpatterns = router.urls
