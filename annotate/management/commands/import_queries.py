from annotate.management.commands._imports import ImportCommand
from annotate.services.imports import import_queries


class Command(ImportCommand):
    help = (
        "Import queries: TSV (qid<TAB>text[<TAB>description]) or JSONL (id, text, description). "
        "An existing query id is updated."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--format", choices=["tsv", "jsonl"], help="default: by extension, else by content"
        )

    def run_import(self, *, campaign, file, filename, progress, options):
        return import_queries(
            campaign=campaign, file=file, name=filename, fmt=options["format"], progress=progress
        )
