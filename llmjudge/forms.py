"""The manager's form for a model judge."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from annotate.forms.manage import within_limit
from llmjudge.models import ENV_NAME, ModelJudge
from llmjudge.policy import endpoint_problem, key_variable_problem
from llmjudge.prompt import PLACEHOLDERS, unknown_placeholders


class ModelJudgeForm(forms.ModelForm):
    base_url = forms.URLField(
        label=_("Endpoint base URL"), max_length=500, assume_scheme="https",
        help_text=_("e.g. https://api.openai.com/v1, or http://127.0.0.1:11434/v1 for Ollama"),
    )  # fmt: skip

    class Meta:
        model = ModelJudge
        fields = [
            "name", "base_url", "model", "api_key_env", "temperature", "samples",
            "max_concurrency", "requests_per_minute", "max_requests", "max_tokens",
            "max_output_tokens", "timeout_seconds", "scope", "query_ids", "examples", "template",
        ]  # fmt: skip
        # The model's words are English (migrations, admin); the form speaks the manager's.
        labels = {
            "name": _("Name"),
            "model": pgettext_lazy("language model", "Model"),
            "api_key_env": _("API key variable"),
            "temperature": _("Temperature"),
            "samples": _("Samples"),
            "max_concurrency": _("Max concurrency"),
            "requests_per_minute": _("Requests per minute"),
            "max_requests": _("Max requests"),
            "max_tokens": _("Max tokens"),
            "max_output_tokens": _("Reply tokens at most"),
            "timeout_seconds": _("Timeout seconds"),
            "scope": _("Scope"),
            "query_ids": _("Only these queries"),
            "examples": _("Few-shot examples"),
            "template": _("Template"),
        }
        help_texts = {
            "name": _("The label source is model:<name>."),
            "api_key_env": _(
                "The environment variable of the job worker that holds the API key (never the "
                "key itself), such as LLMJUDGE_KEY_OPENAI; empty for a local server without a "
                "key."
            ),
            "samples": _("Answers asked per item, aggregated by the campaign's rule."),
            "max_requests": _("Budget: requests sent per run, retries included."),
            "max_tokens": _("Budget: prompt and reply tokens per run."),
            "examples": _(
                "Items a manager adjudicated, shown in the prompt with their ruling (and then "
                "not judged by the model: it would see its own answer)."
            ),
            "query_ids": _(
                "External query ids, one per line or comma-separated; empty: every query."
            ),
        }
        widgets = {
            "template": forms.Textarea(attrs={"rows": 24, "cols": 100, "spellcheck": "false"}),
            "query_ids": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        if self.instance.pk:  # the name is the label source's: renaming would orphan it
            self.fields["name"].disabled = True
        self.fields["template"].help_text = _(
            "Placeholders: %(names)s. Write {{ and }} for a brace."
        ) % {"names": ", ".join(f"{{{name}}}" for name in PLACEHOLDERS)}

    def clean_template(self) -> str:
        template = within_limit(self.cleaned_data["template"], "prompt_template")
        unknown = unknown_placeholders(template)
        if unknown:
            raise forms.ValidationError(
                _("Unknown placeholders: %(names)s.") % {"names": ", ".join(unknown)}
            )
        return template

    def clean_query_ids(self) -> str:
        return within_limit(self.cleaned_data["query_ids"], "query_ids")

    def clean_api_key_env(self) -> str:
        name = self.cleaned_data["api_key_env"]
        if name:
            ENV_NAME(name)  # the form of a name first: "sk-..." is a key pasted by mistake
        problem = key_variable_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name

    def clean_base_url(self) -> str:
        url = self.cleaned_data["base_url"]
        problem = endpoint_problem(url)
        if problem:
            raise forms.ValidationError(problem)
        return url

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        taken = ModelJudge.objects.filter(campaign=self.campaign, name=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(_("This campaign already has a judge of that name."))
        return name

    def save(self, commit: bool = True) -> ModelJudge:
        self.instance.campaign = self.campaign
        return super().save(commit=commit)
