from django.urls import path

from annotate.views import campaigns, home

app_name = "annotate"

urlpatterns = [
    path("", home.home, name="home"),
    path("campaigns/", campaigns.campaign_list, name="campaign_list"),
    path("campaigns/<slug:slug>/", campaigns.campaign_detail, name="campaign"),
]
