"""Forms of invitations, password-reset links and preferences. They read and check input; the
services write."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import password_validation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from annotate.models import Role
from annotate.services.invitations import LIFETIMES, NAME_MAX

MAX_LIST_BYTES = 1024 * 1024  # an uploaded list of people: 500 lines fit many times over


def _days_field() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        choices=[(d, ngettext_lazy("%(n)d day", "%(n)d days", "n") % {"n": d}) for d in LIFETIMES],
        coerce=int,
        label=_("Link expires after"),
    )


def _role_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=[(Role.RATER, _("Rater")), (Role.MANAGER, _("Co-manager"))],
        initial=Role.RATER,
        label=_("Invite as"),
    )


class _MailOption(forms.Form):
    """Offers the "send by e-mail" box only when the server sends e-mail."""

    def __init__(self, *args, mail: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not mail:
            del self.fields["send_email"]


class InviteForm(_MailOption):
    name = forms.CharField(
        max_length=NAME_MAX,
        required=False,
        label=_("Name"),
        help_text=_("Who the link is for; their proposed username is made from it."),
    )
    email = forms.EmailField(required=False, label=_("E-mail address (optional)"))
    role = _role_field()
    days = _days_field()
    send_email = forms.BooleanField(required=False, label=_("Also send the link by e-mail"))

    def clean(self):
        data = super().clean()
        if not data.get("name") and not data.get("email") and not self.errors:
            raise forms.ValidationError(_("Give a name or an e-mail address."))
        return data


class BulkInviteForm(_MailOption):
    people = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        label=_("People, one per line"),
        help_text=_("A name, an e-mail address, or both: 张伟, zhang.wei@example.com"),
    )
    upload = forms.FileField(
        required=False,
        label=_("…or a list to upload"),
        help_text=_("Text or CSV, UTF-8 or GB18030, one person per line."),
    )
    role = _role_field()
    days = _days_field()
    send_email = forms.BooleanField(
        required=False, label=_("Also send each link to the e-mail address given")
    )
    bom = forms.BooleanField(
        required=False, label=_("CSV for Excel (UTF-8 with a byte-order mark)")
    )

    def clean_upload(self):
        upload = self.cleaned_data.get("upload")
        if upload is not None and upload.size > MAX_LIST_BYTES:
            raise forms.ValidationError(_("The list is too large (1 MB at most)."))
        return upload

    def clean(self):
        data = super().clean()
        if not data.get("people", "").strip() and not data.get("upload") and not self.errors:
            raise forms.ValidationError(_("Paste the names or upload a list."))
        return data


class NewPasswordForm(forms.Form):
    """A new password, typed twice."""

    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", _("The two passwords differ."))
        return data


class AcceptForm(NewPasswordForm):
    """An invitee's new account: a username and a password."""

    field_order = ["username", "password1", "password2"]
    username = forms.CharField(
        max_length=150,
        label=_("Username"),
        help_text=_("You sign in with it. Letters, digits and @ . + - _ only."),
    )


def _language_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        required=False,
        label=_("Interface language"),
        choices=[("", _("Automatic (the campaign's, else the browser's)")), *settings.LANGUAGES],
    )


class LanguageForm(forms.Form):
    """The picker in the header."""

    language = _language_field()
    next = forms.CharField(required=False)


class PreferencesForm(forms.Form):
    language = _language_field()
    csv_bom = forms.BooleanField(
        required=False,
        label=_("Write CSV downloads for Excel (UTF-8 with a byte-order mark)"),
        help_text=_(
            "Excel on Windows, Chinese Windows above all, needs the mark to show Chinese "
            "text; other programs do not. A download link with ?bom=1 or ?bom=0 decides "
            "for itself."
        ),
    )
