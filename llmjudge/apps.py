from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LlmjudgeConfig(AppConfig):
    name = "llmjudge"
    verbose_name = _("Model judges")
