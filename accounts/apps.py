from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Sign-in and API tokens"

    def ready(self):
        from . import signals  # noqa: F401  (connects the receivers)
