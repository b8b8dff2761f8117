from django.urls import path

from jobs import views

app_name = "jobs"

urlpatterns = [
    path("campaigns/<slug:slug>/jobs/", views.campaign_jobs_page, name="campaign"),
    path("campaigns/<slug:slug>/jobs/status.json", views.campaign_jobs_status, name="status"),
    path("campaigns/<slug:slug>/jobs/recompute/", views.recompute, name="recompute"),
    path("campaigns/<slug:slug>/jobs/<int:job_id>/cancel/", views.job_cancel, name="cancel"),
]
