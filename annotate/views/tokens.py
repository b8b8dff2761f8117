"""The user's API token page: list, create with a name (the token is shown once, in the answer
to the POST that made it, and stored nowhere), revoke."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotate.models.tokens import TOKEN_NAME_MAX_LENGTH
from annotate.tokens import LIFETIMES, TokenRefused, token_create, token_revoke, tokens_of


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=TOKEN_NAME_MAX_LENGTH,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("What uses it, so you can tell your tokens apart: CI, notebook…"),
        error_messages={"required": gettext_lazy("Give the token a name, e.g. CI or notebook.")},
    )
    days = forms.TypedChoiceField(
        choices=[(d, ngettext_lazy("%(n)d day", "%(n)d days", "n") % {"n": d}) for d in LIFETIMES],
        coerce=int,
        label=gettext_lazy("Expires after"),
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_token = new_name = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                _instance, new_token = token_create(
                    user=request.user,
                    name=form.cleaned_data["name"],
                    days=form.cleaned_data["days"],
                )
            except TokenRefused as exc:
                form.add_error(exc.field, str(exc))
            else:
                new_name = form.cleaned_data["name"]
                form = TokenForm()  # the next token needs a name of its own
        status = 201 if new_token else 400
    context = {
        "form": form,
        "tokens": tokens_of(request.user),
        "new_token": new_token,
        "new_name": new_name,
    }
    return render(request, "annotate/tokens.html", context, status=status)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_key: str) -> HttpResponse:
    if token_revoke(user=request.user, token_key=token_key):
        messages.success(
            request, _("Token %(key)s… revoked: scripts using it get 401 now.") % {"key": token_key}
        )
    else:
        messages.error(request, _("No such token (already revoked or expired)."))
    return redirect("annotate:tokens")
