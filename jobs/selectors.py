"""Who sees which job: the managers of its campaign (and superusers), as for the campaign's
other pages; anyone else gets 404, so a job's existence is not revealed."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _

from annotate.models import Campaign, Role
from annotate.selectors import campaign_managed_by, campaigns_for
from jobs.models import Job


def job_managed_by(user, slug: str, job_id: int) -> tuple[Campaign, Job]:
    campaign = campaign_managed_by(user, slug)
    try:
        return campaign, Job.objects.get(pk=job_id, campaign_id=campaign.pk)
    except Job.DoesNotExist:
        raise Http404(_("No such job")) from None


def job_for_manager(user, job_id: int) -> tuple[Campaign, Job]:
    """A job by id alone (the API's /jobs/<id>/), if the user manages its campaign."""
    try:
        job = Job.objects.get(pk=job_id)
    except Job.DoesNotExist:
        raise Http404(_("No such job")) from None
    campaign = campaigns_for(user, role=Role.MANAGER).filter(pk=job.campaign_id).first()
    if campaign is None:
        raise Http404(_("No such job"))
    return campaign, job
