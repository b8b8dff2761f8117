from annotate.management.commands._imports import ImportCommand
from annotate.services.imports import import_documents


class Command(ImportCommand):
    help = (
        "Import documents: CSV with a header, or JSONL (id, title, url, snippet; other columns "
        "are kept as extra fields). Fills placeholder documents."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--format", choices=["csv", "jsonl"], help="default: by extension, else by content"
        )

    def run_import(self, *, campaign, file, filename, progress, options):
        return import_documents(
            campaign=campaign, file=file, name=filename, fmt=options["format"], progress=progress
        )
