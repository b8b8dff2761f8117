"""Forms of the manager's pages. They only read and check input; the writes are services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_lazy

from annotate import inputs
from annotate.cards import card_parts, extra_keys
from annotate.models import Campaign
from annotate.models.campaigns import DEFAULT_SCALE
from annotate.selectors_judge import extra_key_used
from annotate.services.campaigns import RESERVED_SLUGS, CampaignExists, campaign_slug_for
from annotate.services.manage import SETTINGS_FIELDS
from annotate.services.scale import LabelSpec

# The fields a manager edits: one list, the service's (a form field it lacked was dropped).


# Set on the settings page, once the campaign has documents and hosts to name (the card's
# marking of the query's words starts on).
ONCE_IT_EXISTS = frozenset({"image_hosts", "card", "highlight_terms"})


def within_limit(value: str, limit_name: str) -> str:
    """``value`` if it is within the ``limit_name`` limit (annotate.inputs), else a form error.
    For text a person types into a form; imports have their own line-numbered checks."""
    maximum = inputs.limit(limit_name)
    if len(value) > maximum:
        raise forms.ValidationError(
            gettext("This text is %(n)s characters long; the limit is %(limit)s.")
            % {"n": f"{len(value):,}", "limit": f"{maximum:,}"}
        )
    return value


class CampaignTextLimits:
    """A campaign's free text within its limits, for every form that edits it (the settings
    and new-campaign pages, the API's campaign POST, the admin)."""

    cleaned_data: dict

    def clean_description(self) -> str:
        return within_limit(self.cleaned_data.get("description", ""), "campaign_description")

    def clean_guidelines(self) -> str:
        return within_limit(self.cleaned_data.get("guidelines", ""), "guidelines")

    def clean_image_hosts(self) -> str:
        return within_limit(self.cleaned_data.get("image_hosts", ""), "image_hosts")


def _slug_taken(slug: str) -> bool:
    return Campaign.objects.filter(slug=slug).exists()


class CampaignSettingsForm(CampaignTextLimits, forms.ModelForm):
    class Meta:
        model = Campaign
        fields = SETTINGS_FIELDS
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "guidelines": forms.Textarea(attrs={"rows": 14}),
            "image_hosts": forms.Textarea(attrs={"rows": 2}),
            # Translators: the card's keywords are syntax; keep them as they are.
            "card": forms.Textarea(
                attrs={"rows": 4, "placeholder": gettext_lazy("title\nurl\nsnippet")}
            ),
        }
        # Here, not as the model fields' verbose names: those would need a migration.
        labels = {
            "name": gettext_lazy("Name"),
            "description": gettext_lazy("Description"),
            "guidelines": gettext_lazy("Guidelines"),
            "image_hosts": gettext_lazy("Image hosts"),
            "card": gettext_lazy("Document card"),
            "highlight_terms": gettext_lazy("Highlight the query's words"),
            "aggregation": gettext_lazy("Aggregation"),
            "relevant_from": gettext_lazy("Relevant from"),
            "overlap": gettext_lazy("Raters per item (overlap)"),
            "lease_minutes": gettext_lazy("Lease (minutes)"),
        }

    def clean_card(self) -> str:
        """Each extra field the card names must be one some document of the campaign has: a
        misspelt name would leave every card without its picture or table."""
        text = self.cleaned_data.get("card", "")
        if self.instance.pk is None:
            return text
        missing = [
            key
            for key in extra_keys(card_parts(text))
            if not extra_key_used(campaign=self.instance, key=key)
        ]
        if missing:
            raise forms.ValidationError(
                gettext("No document of this campaign has the extra field %(keys)s.")
                % {"keys": ", ".join(f"“{key}”" for key in missing)}
            )
        return text


class CampaignCreateForm(CampaignSettingsForm):
    slug = forms.SlugField(
        max_length=80,
        required=False,
        label=gettext_lazy("Slug"),
        help_text=gettext_lazy(
            "Used in links; made from the name if empty (a name in Chinese or another script "
            "is transliterated)."
        ),
    )

    class Meta(CampaignSettingsForm.Meta):
        # Image hosts are set on the settings page, once the campaign exists.
        fields = ["name", "slug", *(f for f in SETTINGS_FIELDS[1:] if f not in ONCE_IT_EXISTS)]

    def clean_slug(self) -> str:
        slug = self.cleaned_data.get("slug")
        if not slug:
            # Made from the name in any script (transliterated, numbered when another name
            # made it first), or random: never a form error for want of Latin letters (issue
            # 20). The same name sent twice is a double submit, refused.
            try:
                return campaign_slug_for(self.cleaned_data.get("name", ""))
            except CampaignExists as exists:
                slug = exists.slug
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(
                gettext("“%(slug)s” is reserved; choose another slug.") % {"slug": slug}
            )
        if _slug_taken(slug):
            raise forms.ValidationError(
                gettext("A campaign with the slug “%(slug)s” already exists.") % {"slug": slug}
            )
        return slug

    def clean_relevant_from(self) -> float:
        # A new campaign starts with the default scale.
        value = self.cleaned_data["relevant_from"]
        grades = [grade for _, grade, _ in DEFAULT_SCALE]
        if not min(grades) <= value <= max(grades):
            raise forms.ValidationError(
                gettext(
                    "Must be a grade of the scale or between them (%(low)s to %(high)s); the "
                    "scale can be changed after creating the campaign."
                )
                % {"low": f"{min(grades):g}", "high": f"{max(grades):g}"}
            )
        return value


class LabelForm(forms.Form):
    id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(
        max_length=40, widget=forms.TextInput(attrs={"aria-label": gettext_lazy("Name")})
    )
    grade = forms.FloatField(
        widget=forms.NumberInput(attrs={"aria-label": gettext_lazy("Grade"), "step": "any"})
    )
    # max_length is checked by the scale service, so "Gx" gets its explanation, not a generic one.
    key = forms.CharField(
        max_length=3, widget=forms.TextInput(attrs={"aria-label": gettext_lazy("Key"), "size": 2})
    )

    def spec(self, *, delete: bool) -> LabelSpec:
        # A row ticked for deletion is not validated, so its other fields may be missing.
        data = self.cleaned_data
        return LabelSpec(
            id=data.get("id"),
            name=data.get("name", ""),
            grade=data.get("grade", 0.0),
            key=data.get("key", ""),
            delete=delete,
        )


class BaseLabelFormSet(forms.BaseFormSet):
    def add_fields(self, form, index) -> None:
        super().add_fields(form, index)
        form.fields["ORDER"].widget.attrs.update({"aria-label": gettext("Order"), "min": 1})
        form.fields["DELETE"].widget.attrs["aria-label"] = gettext("Delete")


LabelFormSet = forms.formset_factory(
    LabelForm,
    formset=BaseLabelFormSet,
    extra=1,
    can_delete=True,
    can_order=True,
    max_num=12,
    absolute_max=12,
)


class RelevantFromForm(forms.Form):
    relevant_from = forms.FloatField(
        label=gettext_lazy("Relevant from"),
        help_text=gettext_lazy(
            "Grade from which a document counts as relevant (MAP, P@k, recall, MRR)."
        ),
    )


class RaterAddForm(forms.Form):
    username = forms.CharField(
        max_length=150, label=gettext_lazy("Username of an existing account")
    )


class RatersNeededForm(forms.Form):
    query = forms.CharField(
        max_length=200,
        label=gettext_lazy("Query id"),
        help_text=gettext_lazy("The query's external id."),
    )
    raters_needed = forms.IntegerField(
        min_value=1,
        max_value=50,
        required=False,
        label=gettext_lazy("Raters needed"),
        help_text=gettext_lazy("Empty: the campaign's overlap."),
    )


class LeaseReleaseForm(forms.Form):
    rater = forms.IntegerField(widget=forms.HiddenInput)
    query = forms.IntegerField(required=False, widget=forms.HiddenInput)
