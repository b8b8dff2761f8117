from django.db import migrations, models

import annotate.cards


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0023_comparison_plan"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="card",
            field=models.TextField(
                blank=True,
                help_text="One part per line, in the order shown: title, url, snippet, “image: FIELD” (a picture whose address is in that extra field of the documents) and “fields: FIELD, FIELD” (extra fields as a small table, e.g. fields: price, brand). Empty: title, URL and snippet. Pictures come only from this site or the image hosts.",
                validators=[annotate.cards.validate_card],
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="highlight_terms",
            field=models.BooleanField(
                default=True,
                help_text="Mark the query's words in the titles and snippets raters see.",
            ),
        ),
    ]
