from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.models import Role
from annotate.selectors import campaigns_for


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The signed-in user's start page: their queues as a rater, their campaigns as a manager."""
    context = {
        "rater_campaigns": campaigns_for(request.user, role=Role.RATER),
        "managed_campaigns": campaigns_for(request.user, role=Role.MANAGER),
    }
    return render(request, "annotate/home.html", context)
