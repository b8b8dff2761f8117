from django.urls import path

from llmjudge import views

app_name = "llmjudge"

urlpatterns = [
    path("campaigns/<slug:slug>/judges/", views.judges, name="judges"),
    path("campaigns/<slug:slug>/judges/<slug:name>/", views.judge_page, name="judge"),
]
