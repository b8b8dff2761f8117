from annotate.management.commands._imports import ImportCommand
from annotate.models import SourceKind
from annotate.services.imports import import_qrels


class Command(ImportCommand):
    help = (
        "Import TREC qrels (qid iter docno grade) as a named label source. Grades must be on "
        "the campaign's label scale (or negative: pooled, not judged) unless --any-grade."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--source", required=True, metavar="NAME", help="label source name")
        parser.add_argument(
            "--kind", choices=SourceKind.values, default=SourceKind.IMPORTED, help="source kind"
        )
        parser.add_argument(
            "--any-grade",
            action="store_true",
            help="accept grades the label scale does not have (real-valued, another scale)",
        )
        parser.add_argument(
            "--replace", action="store_true", help="replace a label source of the same name"
        )

    def run_import(self, *, campaign, file, filename, progress, options):
        return import_qrels(
            campaign=campaign,
            file=file,
            name=filename,
            source_name=options["source"],
            kind=options["kind"],
            strict_scale=not options["any_grade"],
            replace=options["replace"],
            progress=progress,
        )
