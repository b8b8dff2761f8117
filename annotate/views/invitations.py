"""Invitations: the manager's page (invite one person or a list, revoke, see who is pending and
who accepted) and the invitee's page behind the link.

The manager's side is for the campaign's managers only (404 for anyone else, as on every
manager page). The link's page needs no account: the secret in the link is the permission,
and it opens one campaign only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotate import safecsv
from annotate.forms.accounts import AcceptForm, BulkInviteForm, InviteForm
from annotate.models import Campaign, Role
from annotate.selectors import campaign_managed_by
from annotate.services.exports import csv_lines
from annotate.services.invitations import (
    InvitationRefused,
    Invitee,
    Issued,
    invitation_accept_existing,
    invitation_accept_new,
    invitation_by_secret,
    invitation_problem,
    invitation_revoke,
    invitation_rows,
    invitations_create,
    invitations_of,
    invitees_parse,
    upload_text,
    username_propose,
)
from annotate.services.mail import invitation_mail, mail_enabled
from annotate.services.preferences import preferences_of


def _link(request: HttpRequest, secret: str) -> str:
    return request.build_absolute_uri(reverse("annotate:invitation", kwargs={"secret": secret}))


def _page(request, campaign, *, status=200, form=None, bulk=None, issued=None) -> HttpResponse:
    bom = preferences_of(request.user).csv_bom
    context = {
        "campaign": campaign,
        "form": form or InviteForm(mail=mail_enabled()),
        "bulk": bulk or BulkInviteForm(initial={"bom": bom}, mail=mail_enabled()),
        "issued": [(item.invitation, _link(request, item.secret)) for item in issued or ()],
        "invitations": invitations_of(campaign),
        "mail_enabled": mail_enabled(),
    }
    return render(request, "annotate/manage_invitations.html", context, status=status)


def _mail_all(request, issued: list[Issued]) -> int:
    sender = request.user.get_username()
    sent = 0
    for item in issued:
        if item.invitation.email:
            link = _link(request, item.secret)
            sent += invitation_mail(invitation=item.invitation, link=link, sender=sender)
    return sent


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def invitations(request: HttpRequest, slug: str) -> HttpResponse:
    """The list, and (POST) one new invitation, whose link is shown once in the answer."""
    campaign = campaign_managed_by(request.user, slug)
    if request.method == "GET":
        return _page(request, campaign)
    form = InviteForm(request.POST, mail=mail_enabled())
    if not form.is_valid():
        return _page(request, campaign, status=400, form=form)
    data = form.cleaned_data
    try:
        issued = invitations_create(
            campaign=campaign,
            created_by=request.user,
            invitees=[Invitee(name=data["name"].strip(), email=data["email"])],
            role=data["role"],
            days=data["days"],
        )
    except InvitationRefused as exc:
        form.add_error(None, exc.message)
        return _page(request, campaign, status=400, form=form)
    if data.get("send_email") and data["email"]:
        if _mail_all(request, issued):
            messages.success(request, _("The link was sent to %(email)s.") % data)
        else:
            messages.error(request, _("The e-mail could not be sent; copy the link instead."))
    return _page(request, campaign, issued=issued)


@never_cache
@login_required
@require_POST
def invitations_bulk(request: HttpRequest, slug: str) -> HttpResponse:
    """Invite a list of people; the answer is a CSV file with one link per person."""
    campaign = campaign_managed_by(request.user, slug)
    bulk = BulkInviteForm(request.POST, request.FILES, mail=mail_enabled())
    if not bulk.is_valid():
        return _page(request, campaign, status=400, bulk=bulk)
    data = bulk.cleaned_data
    try:
        invitees = invitees_parse(data["people"])
        if data["upload"] is not None:
            upload = data["upload"]
            invitees += invitees_parse(upload_text(upload.read()), source=upload.name)
        issued = invitations_create(
            campaign=campaign,
            created_by=request.user,
            invitees=invitees,
            role=data["role"],
            days=data["days"],
        )
    except InvitationRefused as exc:
        bulk.add_error(None, exc.message)
        return _page(request, campaign, status=400, bulk=bulk)
    if data.get("send_email"):
        _mail_all(request, issued)
    rows = list(invitation_rows(issued, lambda secret: _link(request, secret)))
    chunks = csv_lines(rows[0], rows[1:])
    return StreamingHttpResponse(
        safecsv.with_bom(chunks, data["bom"]),
        content_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": content_disposition_header(
                True, f"{campaign.slug}-invitations.csv"
            ),
            "Cache-Control": "no-store",  # the links are secrets
        },
    )


@login_required
@require_POST
def invitation_revoke_view(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    if invitation_revoke(campaign=campaign, invitation_id=invitation_id):
        messages.success(request, _("Invitation revoked: its link no longer works."))
    else:
        messages.error(request, _("No pending invitation to revoke (used, revoked or expired)."))
    return redirect("annotate:manage_invitations", slug=slug)


def _landing(campaign: Campaign, role: str) -> str:
    if role == Role.RATER:
        return reverse("annotate:judge", kwargs={"slug": campaign.slug})
    return campaign.get_absolute_url()


@never_cache
@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, secret: str) -> HttpResponse:
    """The invitee's page: choose a username and a password (or join with the account signed
    in), and land in the campaign."""
    found = invitation_by_secret(secret)
    problem = invitation_problem(found)
    if problem:
        status = 404 if found is None else 410
        return render(request, "annotate/invitation.html", {"problem": problem}, status=status)
    joining = request.user.is_authenticated
    bound = request.method == "POST" and not joining
    proposed = {"username": username_propose(found)}
    form = AcceptForm(request.POST if bound else None, initial=proposed)
    refusal = ""
    if request.method == "POST" and (joining or form.is_valid()):
        try:
            user = _accept(request, secret, form if bound else None)
        except InvitationRefused as exc:
            refusal = exc.message
        except ValidationError as exc:  # the password validators
            form.add_error("password1", exc)
        else:
            messages.success(
                request,
                _("Welcome, %(name)s: you are now in “%(campaign)s”.")
                % {"name": user.get_username(), "campaign": found.campaign.name},
            )
            return redirect(_landing(found.campaign, found.role))
    context = {"invitation": found, "form": form, "joining": joining, "refusal": refusal}
    failed = refusal or form.errors
    return render(request, "annotate/invitation.html", context, status=400 if failed else 200)


def _accept(request: HttpRequest, secret: str, form: AcceptForm | None):
    if form is None:  # signed in: join with this account
        invitation_accept_existing(secret=secret, user=request.user)
        return request.user
    user = invitation_accept_new(
        secret=secret,
        username=form.cleaned_data["username"],
        password=form.cleaned_data["password1"],
    )
    login(request, user, backend="config.auth.ModelBackend")
    return user
