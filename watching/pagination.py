from rest_framework.pagination import PageNumberPagination


class WatchingPagination(PageNumberPagination):
    """`?page=&page_size=` → `{"count","next","previous","results"}`, like every list of the API."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
